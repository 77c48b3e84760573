"""The emitter: edge-dialect graphs -> the Program model of schema/program.fbs."""

from torchedge.emit.method_emitter import EmitError, MethodEmitter
from torchedge.emit.program_emitter import EmittedProgram, emit_program

__all__ = ["EmitError", "EmittedProgram", "MethodEmitter", "emit_program"]
