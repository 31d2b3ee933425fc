// A project header that picks its warp width by architecture (bitsandbytes' common_hip.cuh): right for device
// code, which is compiled per GPU; the host pass defines no __GFX9__ and gets 32. Its includers' host uses are
// the hazard (samples/wave64/host_header.hip).
#pragma once

#ifdef __GFX9__
#define TILE_WARP 64
#else
#define TILE_WARP 32
#endif

// A build option, not the architecture: the host pass sees the same value.
#ifdef USE_WIDE_ROWS
#define ROWS_PER_BLOCK 8
#else
#define ROWS_PER_BLOCK 4
#endif
