// LeakSanitizer suppressions for the gui test binaries (ASan builds), compiled in so no
// environment is needed: only fontconfig's configuration cache, which Qt's font database loads
// once and fontconfig keeps for the process's lifetime by design (256 + 32 bytes).
extern "C" const char* __lsan_default_suppressions();  // NOLINT: the sanitizer's hook

extern "C" const char* __lsan_default_suppressions() { return "leak:libfontconfig.so\n"; }
