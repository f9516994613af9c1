// Linked into the static executable only (see CMakeLists.txt): crtbeginT.o's
// calls that register and deregister the binary's unwind tables land here,
// through the linker's --wrap, and do nothing. With no table registered,
// libgcc's unwinder looks a frame up through dl_iterate_phdr in the sorted
// .eh_frame_hdr table (--eh-frame-hdr), as it does in a dynamic executable,
// instead of sorting every entry of .eh_frame at the first exception.

struct object;  // libgcc's record of a registered table; never touched here

extern "C" {

void __wrap___register_frame_info(const void* /*begin*/, object* /*record*/) {}

void* __wrap___deregister_frame_info(const void* /*begin*/) { return nullptr; }

}  // extern "C"
