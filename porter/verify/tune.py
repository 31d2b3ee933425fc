"""`porter verify --tune`: try every config the template's manifest lists for the present target on the present
GPU, check each (one case that is not a tile multiple) and time it; record the best config per shape."""

from __future__ import annotations

from typing import Any


def config_space(family: str, params: dict, target: str) -> list[tuple[str, dict]]:
    from porter.convert.params import validate_params
    from porter.convert.render import list_configs, load_manifest

    manifest = load_manifest(family)
    checked = validate_params(family, manifest.get("params", {}), params, manifest.get("dtypes", []))
    return list_configs(family, checked, target)


def tune(mod, family: str, params: dict, *, target: str, shapes: list[dict] | None = None, timer=None,
         device: str = "cuda") -> dict[str, Any]:
    import torch

    from porter.verify.numerics import config_target, gpu
    from porter.verify.perf import Timer

    g = gpu()
    if not g["present"]:
        return {"status": "not run", "reason": "no GPU", "text": "tune: not run (no GPU)"}
    timer = timer or Timer()
    shapes = list(shapes) if shapes else [mod.BENCH_SHAPE]
    out: dict[str, Any] = {"device": g["name"], "target": target, "family": family, "params": params,
                           "results": [], "best": []}
    for name, cfg in config_space(family, params, target):
        with config_target(mod, target, cfg):
            entry: dict[str, Any] = {"config_name": name, "config": cfg, "times": []}
            try:
                case = mod.make_case(mod.TEST_SHAPES[0], 0, device)
                good, msg = mod.compare(mod.run_kernel(case), mod.reference(case), case["out_dtype"])
            except Exception as exc:
                good, msg = False, f"{type(exc).__name__}: {str(exc).strip()[:200]}"
            entry["check"] = {"ok": bool(good), "detail": msg}
            if good:
                for shape in shapes:
                    case = mod.make_case(shape, 0, device)
                    try:
                        t = timer.time(lambda: mod.run_kernel(case))
                        entry["times"].append({"shape": shape, "median_ms": t.median_ms})
                    except Exception as exc:
                        entry["times"].append({"shape": shape, "error": f"{type(exc).__name__}: {str(exc)[:200]}"})
                    del case
                    torch.cuda.empty_cache()
            out["results"].append(entry)
    for shape in shapes:
        timed = [(t["median_ms"], e["config_name"], e["config"]) for e in out["results"] for t in e["times"]
                 if t["shape"] == shape and "median_ms" in t]
        if timed:
            ms, name, cfg = min(timed, key=lambda x: x[0])
            out["best"].append({"shape": shape, "config_name": name, "config": cfg, "median_ms": ms})
    out["status"] = "ok" if out["best"] else "fail"
    return out
