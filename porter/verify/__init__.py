"""`porter verify`: compile a generated module for gfx942, check its numbers on the GPU present, time it."""
