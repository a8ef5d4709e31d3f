"""The fake Discord's reading of ``multipart/form-data`` bodies (``bot.sandbox.form_data``):
the same payload and files as aiohttp's ``MultipartReader``, which it replaced because it was
the fake's largest cost under the load benchmark."""

from __future__ import annotations

import io
import json
from typing import Any
from unittest import mock

import aiohttp
import pytest
from aiohttp import BodyPartReader, MultipartReader
from multidict import CIMultiDict

from bot.sandbox.discord_state import UploadedFile
from bot.sandbox.form_data import media_type, read_form_data

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4


async def _as_aiohttp(body: bytes, content_type: str) -> tuple[Any, list[UploadedFile]]:
    """The reading the fake did before, with aiohttp's reader (the reference)."""
    stream = aiohttp.StreamReader(mock.Mock(_reading_paused=False), 2**16)
    stream.feed_data(body)
    stream.feed_eof()
    reader = MultipartReader(CIMultiDict({"Content-Type": content_type}), stream)
    payload: Any = None
    files: list[UploadedFile] = []
    while (part := await reader.next()) is not None:
        if not isinstance(part, BodyPartReader):
            continue
        name = part.name or ""
        data = await part.read(decode=False)
        if name == "payload_json":
            payload = json.loads(data.decode())
        elif name.startswith("files[") and name.endswith("]") and name[6:-1].isdigit():
            files.append(UploadedFile(index=int(name[6:-1]),
                                      filename=part.filename or f"file{name[6:-1]}",
                                      data=bytes(data),
                                      content_type=part.headers.get("Content-Type")))
    return payload, files


async def _discord_form(fields: list[dict[str, Any]], quote_fields: bool = False
                        ) -> tuple[bytes, str]:
    """A body as discord.py builds it (``aiohttp.FormData(quote_fields=False)``)."""
    form = aiohttp.FormData(quote_fields=quote_fields, default_to_multipart=True)
    for field in fields:
        form.add_field(**field)
    writer = form()
    return await writer.as_bytes(), writer.headers["Content-Type"]


def _file(index: int, name: str, data: bytes) -> dict[str, Any]:
    return {"name": f"files[{index}]", "value": io.BytesIO(data), "filename": name,
            "content_type": "application/octet-stream"}


PAYLOAD = {"content": "✅ 7♥ to centre 2\n--not a boundary", "attachments": [
    {"id": 0, "filename": "hand.png"}, {"id": 1, "filename": "board.png"}]}

FORMS = {
    "payload and two pictures": [{"name": "payload_json", "value": json.dumps(PAYLOAD)},
                                 _file(0, "hand.png", PNG), _file(1, "board.png", PNG[::-1])],
    "payload only": [{"name": "payload_json", "value": json.dumps({"content": "x"})}],
    "a file only, empty": [_file(0, "empty.png", b"")],
    "quoted and non-ASCII file names": [_file(0, 'a "quoted" name.png', PNG),
                                        _file(3, "carte é ♠.png", b"\r\n--\r\n\r\n")],
    "fields that are neither": [{"name": "other", "value": "x"}, _file(1, "x.png", PNG),
                                {"name": "files[x]", "value": "y"}],
}


@pytest.mark.parametrize("quote_fields", [False, True])
@pytest.mark.parametrize("form", FORMS, ids=list(FORMS))
async def test_as_aiohttp_reads_it(form: str, quote_fields: bool) -> None:
    body, content_type = await _discord_form(FORMS[form], quote_fields)
    assert media_type(content_type) == "multipart/form-data"
    expected = await _as_aiohttp(body, content_type)
    assert read_form_data(body, content_type) == expected
    assert expected[1] or form == "payload only"  # the reference did see the files


async def test_preamble_epilogue_and_quoted_boundary() -> None:
    body, content_type = await _discord_form(FORMS["payload and two pictures"])
    boundary = content_type.split("boundary=", 1)[1]
    quoted = f'multipart/form-data; boundary="{boundary}"'
    wrapped = b"a preamble\r\n" + body + b"an epilogue\r\n"
    expected = await _as_aiohttp(wrapped, quoted)
    assert read_form_data(wrapped, quoted) == expected
    assert [f.filename for f in expected[1]] == ["hand.png", "board.png"]


async def test_nested_multipart_is_left_out() -> None:
    inner, inner_type = await _discord_form([_file(5, "inner.png", PNG)])
    outer = aiohttp.MultipartWriter("form-data")
    outer.append(json.dumps({"content": "x"}), {"Content-Disposition":
                                                 'form-data; name="payload_json"'})
    outer.append(inner, {"Content-Type": inner_type,
                         "Content-Disposition": 'form-data; name="files[5]"'})
    outer.append(PNG, {"Content-Disposition": 'form-data; name="files[0]"; filename="a.png"'})
    body = await outer.as_bytes()
    content_type = outer.headers["Content-Type"]
    payload, files = read_form_data(body, content_type)
    assert payload == {"content": "x"}
    assert [(f.index, f.filename, f.data) for f in files] == [(0, "a.png", PNG)]


@pytest.mark.parametrize("body", [b"", b"no boundary here", b"--b\r\nContent-Type: x\r\n\r\n"])
def test_a_broken_body_is_refused(body: bytes) -> None:
    with pytest.raises(ValueError):
        read_form_data(body, "multipart/form-data; boundary=b")


def test_media_type() -> None:
    assert media_type(None) == "application/octet-stream"
    assert media_type("Multipart/Form-Data; boundary=x") == "multipart/form-data"
    assert media_type("application/json") == "application/json"
