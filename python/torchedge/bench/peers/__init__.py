"""Child scripts of the benchmark, each run as a file in its own process.

They are executed by path (`python path/to/run_onnxruntime.py ...`), never
imported: the runtime-hosting ones (run_onnxruntime, run_executorch,
export_onnx, export_executorch, plot_chart) need the packages of
.venv-peers and run with .venv-peers/bin/python; run_eager runs with the
product's interpreter (it unpickles zoo modules). timing_loop.py is their
shared, standard-library-only measuring loop and the wire format of their
result line.
"""
