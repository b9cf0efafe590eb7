// single_pass_scan_decoupled_lookbacks_two_field -- the warp-window look-back over a two-field
// descriptor: status and value in separate words, ordered by release and acquire.
//
// Idea (the descriptor of a blog post on the Blelloch scan, warp scans and decoupled look-back,
// and CUB's for values too wide to pack): when the value
// cannot share an atomic word with the status (any 64-bit type, a struct), the value is stored
// first and the status after it with release semantics (here an atomic exchange with release
// order, which reaches the pollers sooner than a store: grid/protocol.cuh); a reader loads the
// status with acquire and only then the value, so seeing the status guarantees seeing the
// value. One value slot is not enough: a tile writes AGGREGATE and later INCLUSIVE, and a reader
// that saw AGGREGATE could read the INCLUSIVE value written just after and count the
// predecessors twice. So each tile has an aggregate slot and an inclusive slot; the status says
// which to read.
//
// Work, depth, look-back and back-off: as single_pass_scan_decoupled_lookbacks_warp_window.
// Launches: 2. Global traffic: 2 accesses per element plus 12 bytes of descriptor per tile (two
// dependent loads per descriptor read, the first with acquire): bound is memcpy.
//
// Forward progress: tiles are numbered by ticket (single_pass.cuh).
//
// Constraints: any N, every type/operator/mode (no packing limit). Tile = 128 threads x 24
// items (zoo::LookbackTile).
// Pieces: zoo::SinglePassVariant, zoo::WarpLookback, zoo::TwoFieldTileState, zoo::CoarsenedTile.
//
// In the charts: next to the packed warp-window variant; the gap is what an acquire load and a
// second dependent load per descriptor cost in the look-back.
//
// Run: make bin/single_pass_scan_decoupled_lookbacks_two_field && ./bin/single_pass_scan_decoupled_lookbacks_two_field 2^28
#include "../harness/harness.cuh"
#include "single_pass.cuh"

ZOO_MAIN(zoo::SinglePassVariant<zoo::LookbackTile, zoo::TwoFieldTileState, zoo::WarpLookback, zoo::TileOrder::Ticket>)
