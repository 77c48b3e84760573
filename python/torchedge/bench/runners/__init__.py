"""How each kind of child is started and read back.

A runner module offers
    command(env, config, artifact, input_files, threads, plan, outputs) -> argv
    collect(run, outputs) -> (timing fields, output arrays)
where `outputs` is the path prefix the child writes its outputs to, and the
timing fields are load_ms, latencies_ms, threads_effective and, where the
child knows them, import_ms and runtime_version.
"""

from __future__ import annotations

from types import ModuleType

from torchedge.bench.configs import Config


def runner_for(config: Config) -> ModuleType:
    if config.runner == "torchedge_cli":
        from torchedge.bench.runners import torchedge_cli
        return torchedge_cli
    from torchedge.bench.runners import python_child
    return python_child
