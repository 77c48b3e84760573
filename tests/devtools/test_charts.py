"""The Inspector's PNG charts: time per module and planned memory over a run."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest
import torch
from torch import nn

import torchedge
from torchedge.devtools import Inspector

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class Blocks(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 64))
        self.decoder = nn.Sequential(nn.Linear(64, 128), nn.Tanh(), nn.Linear(128, 8))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.decoder(self.encoder(x) + x)


@pytest.fixture(scope="module")
def inspector(tmp_path_factory):
    torch.manual_seed(0)
    x = torch.randn(16, 64)
    folder = tmp_path_factory.mktemp("charts")
    pte = torchedge.to_edge(torch.export.export(Blocks().eval(), (x,))).to_pte(
        etrecord=folder / "m.etrecord")
    program = torchedge.runtime.load(pte.buffer, etdump=True)
    for _ in range(3):
        program.forward(x)
    program.write_etdump(folder / "m.etdump")
    return Inspector(etdump=folder / "m.etdump", etrecord=folder / "m.etrecord"), folder


def png_pixels(path: Path) -> tuple[int, int, set[bytes]]:
    """(width, height, distinct pixels) of an 8-bit RGB(A) PNG, decoded with
    zlib alone; fails on anything that is not a well-formed PNG."""
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    at, chunks = 8, {}
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length:at + 12 + length])
        assert zlib.crc32(kind + body) == crc, kind
        chunks.setdefault(kind, []).append(body)
        at += 12 + length
    assert b"IEND" in chunks
    width, height, depth, color = struct.unpack(">IIBB", chunks[b"IHDR"][0][:10])
    assert depth == 8 and color in (2, 6)
    channels = 3 if color == 2 else 4
    raw = zlib.decompress(b"".join(chunks[b"IDAT"]))
    stride = width * channels + 1
    assert len(raw) == stride * height
    pixels = set()
    for row in range(0, height, 4):  # the filter byte leads each row; sample raw bytes
        line = raw[row * stride + 1:(row + 1) * stride]
        pixels.update(line[i:i + channels] for i in range(0, len(line), channels * 3))
    return width, height, pixels


def test_module_chart_is_a_png_with_content(inspector, tmp_path):
    inspector, _ = inspector
    path = tmp_path / "modules.png"
    inspector.plot_modules(path, depth=1)
    width, height, pixels = png_pixels(path)
    assert width >= 400 and height >= 150
    assert len(pixels) > 20  # bars, text and axes, not a blank canvas


def test_arena_chart_is_a_png_with_content(inspector, tmp_path):
    inspector, _ = inspector
    path = tmp_path / "arena.png"
    inspector.plot_arena(path)
    width, height, pixels = png_pixels(path)
    assert width >= 400 and height >= 150 and len(pixels) > 20


def test_cli_writes_both_charts(inspector, tmp_path, capsys):
    from torchedge.cli import main

    _, folder = inspector
    prefix = tmp_path / "run"
    code = main(["inspect", "--etdump", str(folder / "m.etdump"), "--etrecord",
                 str(folder / "m.etrecord"), "--png", str(prefix)])
    assert code == 0
    for kind in ("modules", "arena"):
        png_pixels(Path(f"{prefix}_{kind}.png"))
    assert "chart written" in capsys.readouterr().out


def test_charts_without_matplotlib_raise_a_clear_error(inspector, tmp_path, monkeypatch):
    import builtins

    inspector, _ = inspector
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    with pytest.raises(ImportError, match="pip install matplotlib"):
        inspector.plot_arena(tmp_path / "a.png")
