"""Pictures sent to Discord let their bytes go once sent, not when the garbage collector runs."""

from __future__ import annotations

import io

import discord
from discord.http import handle_message_parameters

from bot.app.ui import Picture

PNG = b"\x89PNG\r\n\x1a\n" + bytes(1000)


def test_discord_py_closes_a_picture_after_its_request_and_its_bytes_go() -> None:
    picture = Picture(PNG, "board.png")
    # What every send and edit of discord.py does with its files, around the request.
    with handle_message_parameters(content="a board", file=picture) as params:
        assert params.files is not None
        [sent] = params.files
        sent.reset(seek=True)  # a retry starts again from the first byte
        assert sent.fp.read() == PNG and sent.filename == "board.png"
        assert not picture.fp.closed
    assert picture.fp.closed


def test_a_plain_file_keeps_the_buffer_it_was_given() -> None:
    # Why ``Picture`` exists: discord.py never closes a buffer it doesn't own.
    buffer = io.BytesIO(PNG)
    with handle_message_parameters(content="a board", file=discord.File(buffer, "b.png")):
        pass
    assert not buffer.closed


def test_a_picture_with_its_buffer_still_viewed_is_closed_later() -> None:
    picture = Picture(PNG, "hand.png")
    view = picture.fp.getbuffer()  # held elsewhere: closing would raise BufferError
    picture.close()
    assert not picture.fp.closed
    view.release()
    picture.fp.close()
    assert picture.fp.closed
