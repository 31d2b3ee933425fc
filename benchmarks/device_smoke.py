"""First call on a device machine: tilelang imports and runs one generated kernel, an original sample builds
through hip2cuda.h, and the two ceilings (copy bandwidth, matmul) are measured. Prints JSON."""
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
t0 = time.time()
import torch  # noqa: E402

import tilelang  # noqa: E402
from porter.verify.perf import Timer, measure_peaks  # noqa: E402

res = {"tilelang": tilelang.__version__, "import_s": time.time() - t0}
from porter.verify.modules import import_module  # noqa: E402

mod = import_module(sys.argv[1])
t1 = time.time()
case = mod.make_case(mod.TEST_SHAPES[0], 0, "cuda")
out = mod.run_kernel(case)
torch.cuda.synchronize()
res["first_kernel_s"] = time.time() - t1
res["compare"] = mod.compare(out, mod.reference(case), case["out_dtype"])
from porter.verify import gpu_original  # noqa: E402

t2 = time.time()
kern = gpu_original.load("porter/families/softmax/samples/softmax_naive.hip", "softmax_naive")
res["nvcc_build_s"] = time.time() - t2
timer = Timer()
res["peaks"] = measure_peaks(timer)
print(json.dumps(res, indent=1, default=str))
