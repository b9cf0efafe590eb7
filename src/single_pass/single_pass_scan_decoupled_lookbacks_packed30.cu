// single_pass_scan_decoupled_lookbacks_packed30 -- the warp-window look-back over a one-field
// 32-bit descriptor: a 2-bit status and a 30-bit value in one word.
//
// Idea (the compact descriptor of J. V. Contini, "ScanBox: a tunable and portable GPU prefix scan
// implementation in Vulkan and WebGPU", UC Santa Cruz, 2025): a 64-bit descriptor
// doubles the look-back's memory traffic for 32-bit data; packing the status into the top 2 bits
// of a 32-bit word leaves 30 bits for the value, read and written in one relaxed atomic access.
// What it cannot hold: any float (all 32 bits are needed), and any integer tile total or prefix
// outside [-2^29, 2^29). Floats are refused up front (exit code 3, WAIVED); for int32 the
// kernel flags a value that does not fit (publishing it clamped so no tile waits forever) and
// the harness refuses that run's result with exit code 3 rather than report a wrong answer.
// Small-integer data (the harness's default) always fits.
//
// Work, depth, look-back and back-off: as single_pass_scan_decoupled_lookbacks_warp_window.
// Launches: 2. Global traffic: 2 accesses per element plus 4 bytes of descriptor per tile, the
// words dense (32 to a 128-byte line): bound is memcpy.
//
// Forward progress: tiles are numbered by ticket (single_pass.cuh).
//
// Constraints: any N; int32 only, with every tile total and prefix in [-2^29, 2^29); every
// operator and mode. Tile = 128 threads x 24 items (zoo::LookbackTile).
// Pieces: zoo::SinglePassVariant, zoo::WarpLookback, zoo::PackedTileState30, zoo::CoarsenedTile.
//
// In the charts: ahead of the 64-bit packed variant at large N in the committed sweeps, though
// the bytes saved are nothing (0.1% of the traffic): what counts is how the words are published.
// Its dense words put 8 neighbours' publishes and polls on one sector; while descriptors were
// published by store, that made it one of the slowest look-backs; published by atomic exchange,
// as now, it overtook the warp window (bench/NOTES.md, "Publishing by exchange": the before and
// after on both GPUs).
//
// Run: make bin/single_pass_scan_decoupled_lookbacks_packed30 && ./bin/single_pass_scan_decoupled_lookbacks_packed30 2^28
#include "../harness/harness.cuh"
#include "single_pass.cuh"

ZOO_MAIN(zoo::SinglePassVariant<zoo::LookbackTile, zoo::PackedTileState30, zoo::WarpLookback, zoo::TileOrder::Ticket>)
