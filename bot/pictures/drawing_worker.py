"""``python -m bot.pictures.drawing_worker``: the drawing process that ``drawing`` starts.

It reads drawings from its stdin and writes the pictures to its stdout, one after another, each
message a 4-byte big-endian length and then that many bytes of pickle. A drawing is the name of
a drawing function (``render_board``, ``render_hand``, ``render_leaderboard``,
``render_money_chart``) and its arguments; the answer is ``(True, png_bytes)`` or
``(False, exception, traceback_text)``. Pickle is acceptable here because both ends are this
code, started by the bot itself, and the pipes are private to the two processes: nothing from
outside is ever unpickled.

It imports the renderers (``bot.pictures.board_picture``, ``hand_picture``, ``render_tables``)
and ``engine`` and nothing of the bot's Discord side, so that it stays small. It logs nothing
and prints nothing about what it draws (a hand picture is one player's secret); its stderr is
the bot's, for a crash.

Its life follows the bot's: it stops when its stdin closes, which happens when the bot closes
it (``Pictures.close``) or when the bot's process ends in any way, so no drawing process
outlives the bot. Ctrl-C and ``SIGTERM`` reach the whole process group; the worker leaves them
to the bot, which still draws the pending boards as it stops.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pickle
import signal
import sys
import traceback
from collections.abc import Callable
from typing import Any, BinaryIO

from .board_picture import render_board
from .bracket_picture import draw_bracket
from .hand_picture import render_hand
from .plan_picture import render_plan
from .render_tables import render_leaderboard, render_money_chart
from .season_picture import render_season_final

DRAWINGS: dict[str, Callable[..., bytes]] = {
    f.__name__: f for f in (render_board, render_hand, render_leaderboard, render_money_chart,
                            render_season_final, render_plan, draw_bracket)}
"""What the bot may ask for, by name."""

PIPE_SIZE = 1 << 20
"""Bytes the pipe of answers may hold (Linux's limit for an unprivileged process)."""

HEADER = 4
"""Bytes of the length before each message."""


def read_message(stream: BinaryIO) -> bytes | None:
    """The next message's bytes, or ``None`` once the stream has ended."""
    head = stream.read(HEADER)
    if len(head) < HEADER:
        return None
    size = int.from_bytes(head, "big")
    body = stream.read(size)
    return body if len(body) == size else None


def frame(body: bytes) -> bytes:
    """``body`` with its length in front."""
    return len(body).to_bytes(HEADER, "big") + body


def _answer(request: bytes) -> bytes:
    try:
        name, args = pickle.loads(request)
        drawing: tuple[Any, ...] = tuple(args)
        return pickle.dumps((True, DRAWINGS[name](*drawing)), pickle.HIGHEST_PROTOCOL)
    except Exception as exc:
        # Sent back to be raised where the drawing was asked for, as a function called in the
        # bot's own process would raise it.
        text = "".join(traceback.format_exception(exc))
        try:
            answer = pickle.dumps((False, exc, text), pickle.HIGHEST_PROTOCOL)
            pickle.loads(answer)  # some exceptions pickle, but do not unpickle
            return answer
        except Exception:
            plain = RuntimeError(f"{type(exc).__name__} in the drawing process")
            return pickle.dumps((False, plain, text), pickle.HIGHEST_PROTOCOL)


def main() -> None:
    """Draw what comes on stdin until it ends."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)
    requests = sys.stdin.buffer
    # The answers keep stdout's pipe to themselves: whatever else is printed (a library's
    # warning) goes to stderr instead of into the middle of a picture.
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    # Room in the pipe for several pictures (the usual 64 KB holds about one board): the bot
    # reads them on its event loop, and while that is busy with interactions the worker goes
    # on drawing instead of waiting to hand over the last picture. (Linux; elsewhere, or above
    # the system's limit, the pipe keeps its size.)
    with contextlib.suppress(OSError, AttributeError):
        fcntl.fcntl(answers.fileno(), fcntl.F_SETPIPE_SZ, PIPE_SIZE)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    try:
        while (request := read_message(requests)) is not None:
            answers.write(frame(_answer(request)))
            answers.flush()
    except BrokenPipeError:  # the bot is gone: nobody is waiting for the picture
        pass
    finally:
        with contextlib.suppress(BrokenPipeError):
            answers.close()


if __name__ == "__main__":
    main()
