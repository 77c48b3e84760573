"""Facts about ATen operators and types that several stages share:
argument binding, out-variant lookup, dtype wire codes."""
