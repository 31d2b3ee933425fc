// porter emulate: the job runner. Loads one kernel library, places the arguments in guarded device memory, runs
// the launch and writes the buffers back. Runs in its own process so a faulting kernel cannot take porter down.
//
//   porter-emu-run --signature KERNEL.so     print the kernel's parameter codes, one per line
//   porter-emu-run JOBFILE                   run a job (format: see porter/emulate/runner.py)
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using Configure = void (*)(int, int, const char*, double, size_t);
using Limits = void (*)(unsigned, size_t, const char*);
using Malloc = void* (*)(size_t, const char*);
using Finish = void (*)();
using Entry = int (*)(void**, int, const unsigned*, size_t);
using Signature = const char* (*)();

static void* need(void* lib, const char* name) {
    void* s = dlsym(lib, name);
    if (!s) {
        std::fprintf(stderr, "porter-emu-run: %s: missing symbol\n", name);
        std::exit(2);
    }
    return s;
}

struct Arg {
    bool buf = false;
    size_t bytes = 0;
    std::string in, out, name;
    std::vector<unsigned char> val;
    void* ptr = nullptr;
    alignas(16) unsigned char storage[64];
};

static bool read_file(const std::string& path, void* dst, size_t n) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return false;
    size_t r = n ? std::fread(dst, 1, n, f) : 0;
    std::fclose(f);
    return r == n;
}

int main(int argc, char** argv) {
    if (argc == 3 && std::string(argv[1]) == "--signature") {
        void* lib = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            std::fprintf(stderr, "porter-emu-run: %s\n", dlerror());
            return 2;
        }
        std::fputs(reinterpret_cast<Signature>(need(lib, "porter_signature"))(), stdout);
        return 0;
    }
    if (argc != 2) {
        std::fprintf(stderr, "usage: porter-emu-run JOBFILE | --signature LIB\n");
        return 2;
    }
    std::ifstream job(argv[1]);
    std::string line, so, diag;
    int wave = 64, workers = 1;
    double timeout = 60;
    size_t stack = 0, shared = 0, max_shared = 0;
    unsigned max_threads = 0;
    std::string arch;
    unsigned cfg[6] = {1, 1, 1, 1, 1, 1};
    std::vector<Arg> args;
    while (std::getline(job, line)) {
        std::istringstream in(line);
        std::string key;
        in >> key;
        if (key == "so") std::getline(in >> std::ws, so);
        else if (key == "diag") std::getline(in >> std::ws, diag);
        else if (key == "wave") in >> wave;
        else if (key == "workers") in >> workers;
        else if (key == "timeout") in >> timeout;
        else if (key == "stack") in >> stack;
        else if (key == "shared") in >> shared;
        else if (key == "limits") in >> max_threads >> max_shared >> arch;
        else if (key == "grid") in >> cfg[0] >> cfg[1] >> cfg[2];
        else if (key == "block") in >> cfg[3] >> cfg[4] >> cfg[5];
        else if (key == "buf") {
            Arg a;
            a.buf = true;
            in >> a.bytes >> a.name >> a.in >> a.out;
            args.push_back(a);
        } else if (key == "val") {
            Arg a;
            std::string hex;
            in >> a.bytes >> hex;
            for (size_t i = 0; i + 1 < hex.size(); i += 2) a.val.push_back((unsigned char)std::stoul(hex.substr(i, 2), nullptr, 16));
            args.push_back(a);
        }
    }
    void* lib = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        std::fprintf(stderr, "porter-emu-run: %s\n", dlerror());
        return 2;
    }
    auto configure = reinterpret_cast<Configure>(need(lib, "porter_rt_configure"));
    auto dmalloc = reinterpret_cast<Malloc>(need(lib, "porter_rt_malloc"));
    auto finish = reinterpret_cast<Finish>(need(lib, "porter_rt_finish"));
    auto entry = reinterpret_cast<Entry>(need(lib, "porter_entry"));
    configure(wave, workers, diag.c_str(), timeout, stack);
    reinterpret_cast<Limits>(need(lib, "porter_rt_limits"))(max_threads, max_shared, arch.c_str());
    std::vector<void*> argp;
    for (Arg& a : args) {
        if (a.buf) {
            a.ptr = dmalloc(a.bytes, a.name.c_str());
            if (a.in != "-" && !read_file(a.in, a.ptr, a.bytes)) {
                std::fprintf(stderr, "porter-emu-run: cannot read %s\n", a.in.c_str());
                return 2;
            }
            std::memcpy(a.storage, &a.ptr, sizeof(void*));
        } else {
            if (a.val.size() > sizeof a.storage) {
                std::fprintf(stderr, "porter-emu-run: scalar argument too large\n");
                return 2;
            }
            std::memcpy(a.storage, a.val.data(), a.val.size());
        }
        argp.push_back(a.storage);
    }
    int rc = entry(argp.data(), int(argp.size()), cfg, shared);
    finish();  // stops the watchdog on every path: exiting with it still waiting races static destructors
    if (rc == -1) {
        std::fprintf(stderr, "porter-emu-run: wrong number of kernel arguments\n");
        return 2;
    }
    if (rc != 0) {  // a host launcher's own error code
        std::fprintf(stderr, "porter-emu-run: the launcher returned error code %d\n", rc);
        return 3;
    }
    for (Arg& a : args) {
        if (!a.buf || a.out == "-") continue;
        FILE* f = std::fopen(a.out.c_str(), "wb");
        if (!f || std::fwrite(a.ptr, 1, a.bytes, f) != a.bytes) {
            std::fprintf(stderr, "porter-emu-run: cannot write %s\n", a.out.c_str());
            return 2;
        }
        std::fclose(f);
    }
    std::fflush(stdout);
    return 0;
}
