"""porter: move CUDA kernels to AMD Instinct GPUs (gfx942)."""

__version__ = "0.1.0"
