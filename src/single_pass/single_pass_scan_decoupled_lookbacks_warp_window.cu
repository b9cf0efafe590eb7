// single_pass_scan_decoupled_lookbacks_warp_window -- decoupled look-back where a whole warp
// reads 32 predecessor descriptors per step, scans them, and stops at the nearest INCLUSIVE.
//
// Idea (the warp-parallel look-back of Merrill & Garland 2016, as CUB does it): the serial walk
// of single_pass_scan_decoupled_lookbacks_serial pays one memory round trip per predecessor. Here warp 0
// of the block reads the 32 descriptors before its tile at once (lane 31 the nearest), waits
// until none of them is INVALID, finds the nearest INCLUSIVE one with a ballot, and reduces the
// values from that lane on, in order, with warp shuffles: one round trip covers 32 tiles. If the
// window holds no INCLUSIVE descriptor, its whole reduction is combined in and the window moves
// 32 tiles further back. Packed 64-bit descriptors, one per 32-byte sector, relaxed atomics
// (grid/protocol.cuh); a 600 ns sleep before the first poll and 300 ns between polls
// (grid/lookback.cuh). Those three choices made most of its way to memcpy at large N
// (bench/NOTES.md, "The single-pass family"); publishing each descriptor with an atomic exchange
// instead of a store took it further on the H100 and the H200 (bench/NOTES.md, "Publishing by
// exchange").
//
// Work: O(N); depth: O(log tile) + the look-back windows. Launches: 2 (memset of the tile state
// and ticket, the scan). Global traffic: 2 accesses per element plus 32 bytes per 3072-element
// tile: bound is memcpy.
//
// Forward progress: tiles are numbered by ticket (single_pass.cuh): guaranteed while running
// blocks keep being scheduled.
//
// Constraints: any N; every type/operator/mode of 32-bit elements. Tile = 128 threads x 24
// items (zoo::LookbackTile).
// Pieces: zoo::SinglePassVariant, zoo::WarpLookback, zoo::PackedTileState64, zoo::CoarsenedTile.
//
// In the charts, against CUB (the committed sweeps, bench/<gpu>/timing.txt, at 0e91d48): on the
// H100 ahead of it up to 2^18 (one launch fewer), on the H200 level with it there; on both behind
// it from 2^19 to 2^23, where the look-back's sleeps are a larger share of a short run, and ahead
// from 2^24 on (bench/NOTES.md, "The single-pass family"). Compare with the serial look-back to see what the window buys, and with
// single_pass_scan_tuned to see what tuning the rest buys.
//
// Run: make bin/single_pass_scan_decoupled_lookbacks_warp_window && ./bin/single_pass_scan_decoupled_lookbacks_warp_window 2^28
#include "../harness/harness.cuh"
#include "single_pass.cuh"

ZOO_MAIN(zoo::SinglePassVariant<zoo::LookbackTile, zoo::PackedTileState64, zoo::WarpLookback, zoo::TileOrder::Ticket>)
