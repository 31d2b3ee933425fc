// porter emulate: the per-kernel entry points. The compiler, not a parser, reads the kernel's parameter list:
// porter_signature() describes each parameter's type and porter_entry() unpacks raw argument bytes into it.
#pragma once
#include <string>

namespace porter {
template <class T> std::string type_code() {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_void_v<U>) return "v0";
    else if constexpr (std::is_same_v<U, float>) return "f4";
    else if constexpr (std::is_same_v<U, double>) return "f8";
    else if constexpr (std::is_same_v<U, __half>) return "f2";
    else if constexpr (std::is_same_v<U, bool>) return "b1";
    else if constexpr (std::is_enum_v<U>) return type_code<std::underlying_type_t<U>>();
    else if constexpr (std::is_integral_v<U>) return std::string(std::is_signed_v<U> ? "i" : "u") + std::to_string(sizeof(U));
    else if constexpr (std::is_pointer_v<U>) return "p8";
    else return "V" + std::to_string(sizeof(U));
}
template <class P> std::string param_code() {
    using D = std::decay_t<P>;
    static_assert(std::is_trivially_copyable_v<D>, "porter emulate passes kernel parameters as raw bytes");
    if constexpr (std::is_pointer_v<D>) {
        using E = std::remove_pointer_t<D>;
        return "ptr " + type_code<E>() + (std::is_const_v<E> ? " const" : "");
    } else {
        return "val " + type_code<D>();
    }
}
template <class R, class... P> std::string signature_of(R (*)(P...)) {
    std::string s;
    ((s += param_code<P>() + "\n"), ...);
    return s;
}
template <class T> T load_arg(void* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
}
template <class... P, size_t... I>
void call_kernel(void (*k)(P...), void** argv, const unsigned* cfg, size_t shmem, std::index_sequence<I...>) {
    launch_kernel(k, dim3(cfg[0], cfg[1], cfg[2]), dim3(cfg[3], cfg[4], cfg[5]), shmem,
                  load_arg<std::decay_t<P>>(argv[I])...);
}
template <class... P> int entry(void (*k)(P...), void** argv, int nargs, const unsigned* cfg, size_t shmem) {
    if (nargs != int(sizeof...(P))) return -1;
    call_kernel(k, argv, cfg, shmem, std::index_sequence_for<P...>{});
    return 0;
}
// A host launcher (`extern "C" int launch_k(float* x, int n)`) runs as written: its own grid/block arithmetic and
// hipLaunchKernelGGL / <<<>>> launches go to the emulator. Returns the launcher's non-zero error code, or 0.
template <class R, class... P, size_t... I>
int call_host(R (*f)(P...), void** argv, std::index_sequence<I...>) {
    if constexpr (std::is_void_v<R>) {
        f(load_arg<std::decay_t<P>>(argv[I])...);
        return 0;
    } else {
        return int(f(load_arg<std::decay_t<P>>(argv[I])...));
    }
}
template <class R, class... P> int host_entry(R (*f)(P...), void** argv, int nargs) {
    if (nargs != int(sizeof...(P))) return -1;
    int rc = call_host(f, argv, std::index_sequence_for<P...>{});
    return rc == 0 ? 0 : (rc < 0 ? 1 : rc);  // -1 is kept for "wrong number of arguments"
}
}  // namespace porter
