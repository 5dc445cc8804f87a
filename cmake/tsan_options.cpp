// Built into every program of a ThreadSanitizer build (preset tsan) only: TSan's options, so that
// a program run by hand needs no environment (the tsan test preset also sets TSAN_OPTIONS, which
// Archer reads to check them). The OpenMP runtime's own
// synchronization reaches TSan through LLVM's Archer tool, linked beside this file; the
// libraries that are not instrumented (HDF5, yaml-cpp) are ignored.
extern "C" const char* __tsan_default_options() {
  return "ignore_noninstrumented_modules=1:halt_on_error=1:second_deadlock_stack=1";
}
