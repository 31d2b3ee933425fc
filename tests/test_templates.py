"""Every template renders to a module that parses, imports and lowers with TileLang for both targets, and
every gfx942 config fits the 64 KiB LDS. Lowering needs no GPU (FACTS section 4)."""

from __future__ import annotations

import ast
import importlib.util
import itertools
import sys
from pathlib import Path
from types import ModuleType

import pytest

from gpu import gpu_present
from porter.convert import list_configs, list_families, load_manifest, render, write_module
from porter.convert.params import DTYPES, validate_params
from porter.targets import load_target

import tilelang  # noqa: F401  (a hard requirement here: a missing install must fail, never skip)

pytestmark = pytest.mark.slow

FAMILIES = list_families()     # the registry, porter.families.FAMILIES
MATRIX_FAMILIES = {"gemm", "batched_gemm", "attention"}   # their lowering must use the matrix units
TARGETS = ["gfx942", "sm_90a"]
SOURCE = {"file": "samples/kernels.hip", "kernel": "my_kernel", "line": 12}


def _defaults(family: str) -> dict:
    return {k: spec["default"] for k, spec in load_manifest(family)["params"].items()}


def _import(text: str, directory: Path, stem: str) -> ModuleType:
    ast.parse(text)
    path = write_module(text, directory / f"{stem}.py")
    spec = importlib.util.spec_from_file_location(f"porter_generated_{stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # T.prim_func reads the source file through the module
    spec.loader.exec_module(module)
    return module


_MODULES: dict[tuple, ModuleType] = {}


def generated(tmp_path_factory: pytest.TempPathFactory, family: str, **params) -> ModuleType:
    """Render, parse, write and import a module once per (family, params)."""
    key = (family, tuple(sorted(params.items())))
    if key not in _MODULES:
        stem = "_".join([family] + [f"{k}_{v}" for k, v in sorted(params.items())]).replace(".", "p")
        text = render(family, params, target="gfx942", source_info=SOURCE)
        _MODULES[key] = _import(text, tmp_path_factory.mktemp(family), stem)
    return _MODULES[key]


@pytest.mark.parametrize("family", FAMILIES)
def test_manifest_configs_are_per_target_and_named(family: str) -> None:
    manifest = load_manifest(family)
    params = validate_params(family, manifest["params"], {}, manifest["dtypes"])
    for target in TARGETS:
        configs = list_configs(family, params, target)
        assert configs, f"{family} has no default config for {target}"
        names = [n for n, _ in configs]
        assert len(set(names)) == len(names)
        for name, fields in configs:
            assert name.startswith(f"{family}_{DTYPES[params['dtype']]}_")
            if target == "gfx942":
                assert fields["threads"] % load_target("gfx942").wave_size == 0


def test_gemm_default_config_name() -> None:
    text = render("gemm", {}, source_info=SOURCE)
    assert "config: gemm_f16_128x128x32_s2_t256" in text
    assert "'sm_90a': 'gemm_f16_128x256x64_s3_t256'" in text


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.gpu
def test_header_and_structure(family: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    text = render(family, {}, source_info=SOURCE)
    head = text.splitlines()[:6]
    assert any("samples/kernels.hip" in line for line in head)
    assert any("my_kernel (line 12)" in line for line in head)
    assert any(f"Template:      {family}" in line for line in head)
    tree = ast.parse(text)
    names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    kernel_name = _defaults(family)["kernel_name"]
    assert {kernel_name, f"{kernel_name}_kernel", "reference", "main", "lower_source", "make_case",
            "build_prim_func", "check", "bench"} <= names
    factory = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == f"{kernel_name}_kernel")
    assert any("tilelang.jit" in ast.unparse(d) for d in factory.decorator_list)
    module = generated(tmp_path_factory, family)
    assert len(module.TEST_SHAPES) >= 2
    # main() runs its own check on the GPU present; without one it says so and fails, it never reports a pass
    assert module.main([]) == (0 if gpu_present() else 2)


@pytest.mark.parametrize("family,target", list(itertools.product(FAMILIES, TARGETS)))
def test_default_lowers(family: str, target: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    module = generated(tmp_path_factory, family)
    artifact = module.lower(target)
    src = artifact.kernel_source
    assert "__global__" in src
    if family in MATRIX_FAMILIES:
        if target == "gfx942":
            assert "mfma" in src.lower(), "gfx942 matrix kernel lowered without MFMA"
        else:
            assert "mma" in src.lower(), "sm_90a matrix kernel lowered without tensor-core MMA"
    assert module.shared_memory_bytes(artifact) <= (65536 if target == "gfx942" else 232448)


# Every gfx942 config at the params that make it largest (fp32 for GEMMs, the largest head_dim it allows).
def _lds_cases() -> list[tuple[str, dict]]:
    cases = []
    for family in FAMILIES:
        dtypes = load_manifest(family)["dtypes"]
        widest = "float32" if "float32" in dtypes else "float16"
        cases.append((family, {"dtype": widest}))
        # a size fixed at conversion (attention's head_dim) at its largest: the most LDS its configs take
        cases += [(family, {key: spec["max"]}) for key, spec in load_manifest(family)["params"].items()
                  if spec["kind"] == "int" and "max" in spec]
    return cases


@pytest.mark.parametrize("family,params", _lds_cases(), ids=lambda v: v if isinstance(v, str) else
                         "-".join(f"{k}={x}" for k, x in v.items()))
def test_every_gfx942_config_fits_lds(family: str, params: dict, tmp_path_factory: pytest.TempPathFactory) -> None:
    lds_limit = load_target("gfx942").lds_bytes_per_cu
    module = generated(tmp_path_factory, family, **params)
    full = validate_params(family, load_manifest(family)["params"], params, load_manifest(family)["dtypes"])
    configs = list_configs(family, full, "gfx942")
    assert configs
    for name, fields in configs:
        used = module.shared_memory_bytes(module.lower("gfx942", config=fields))
        assert 0 <= used <= lds_limit, f"{name}: {used} bytes of LDS > {lds_limit}"


def test_lds_measure_is_real(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The LDS check must see the tiles: the gemm default uses (128x32 + 32x128) fp16 = 16 KiB."""
    module = generated(tmp_path_factory, "gemm")
    assert module.shared_memory_bytes(module.lower("gfx942")) >= (128 * 32 + 32 * 128) * 2


VARIANTS = [
    ("gemm", {"layout": "NT"}), ("gemm", {"layout": "TN", "dtype": "bfloat16"}),
    ("gemm", {"layout": "TT", "epilogue": "overwrite", "c_dtype": "float32"}),
    ("batched_gemm", {"layout": "NT"}),
    ("attention", {"causal": True, "head_dim": 64}), ("attention", {"dtype": "bfloat16", "head_dim": 96}),
    ("row_reduce", {"op": "max"}), ("row_reduce", {"op": "mean", "out_dtype": "same"}),
    ("layernorm", {"affine": False}),
    ("elementwise", {"activation": "gelu", "bias": False}),
    ("elementwise", {"activation": "silu", "order": "bias_act_scale", "scale": True, "accumulate": True}),
    ("batched_gemm", {"strides": True, "dtype": "float32"}),
    ("elementwise", {"flat": True, "bias": False, "activation": "none", "scale": True, "shift": True,
                     "dtype": "float32"}),
    ("elementwise", {"activation": "gelu_tanh", "dtype": "bfloat16"}),
    ("softmax", {"dtype": "float32"}), ("rmsnorm", {"dtype": "bfloat16", "runtime_eps": False, "eps": 1e-5}),
    ("transpose", {"dtype": "float32"}),
    ("softmax", {"dtype": "bfloat16", "scale": True, "mask": True}),
    ("row_reduce", {"op": "count_ge", "out_dtype": "int32", "dtype": "float16"}),
    ("attention", {"dtype": "float32", "head_dim": 128}),
]


@pytest.mark.parametrize("family,params", VARIANTS, ids=lambda v: v if isinstance(v, str) else
                         "-".join(f"{k}={x}" for k, x in v.items()))
def test_variants_lower_for_gfx942(family: str, params: dict, tmp_path_factory: pytest.TempPathFactory) -> None:
    module = generated(tmp_path_factory, family, **params)
    src = module.lower("gfx942").kernel_source
    if family in MATRIX_FAMILIES:
        # fp32 keeps fp32 FMA math (no matrix cores: TF32 on NVIDIA would change the result)
        assert ("mfma" in src.lower()) == (params.get("dtype") != "float32")


@pytest.mark.parametrize("family", ["gemm", "attention"])
def test_fp32_lowers_without_tensor_cores_for_sm_90a(family: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    module = generated(tmp_path_factory, family, dtype="float32")
    src = module.lower("sm_90a").kernel_source
    assert not any(word in src for word in ("mma", "tf32", "wgmma")), f"fp32 {family} must not use TF32 tensor cores"


def test_every_enum_and_bool_value_renders_and_parses() -> None:
    """Cheap exhaustive sweep (no lowering): each choice of each param yields a module that parses."""
    for family in FAMILIES:
        schema = load_manifest(family)["params"]
        for name, spec in schema.items():
            choices = {"enum": spec.get("values", []), "bool": [True, False],
                       "dtype": load_manifest(family)["dtypes"]}.get(spec["kind"], [])
            for value in choices:
                ast.parse(render(family, {name: value}, source_info=SOURCE))


def test_kernel_name_is_used(tmp_path_factory: pytest.TempPathFactory) -> None:
    module = generated(tmp_path_factory, "softmax", kernel_name="softmax_rows_f16")
    assert callable(module.softmax_rows_f16) and callable(module.softmax_rows_f16_kernel)


def test_lower_source_cli(tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture) -> None:
    module = generated(tmp_path_factory, "transpose")
    assert module.main(["--lower", "gfx942"]) == 0
    assert "__global__" in capsys.readouterr().out


ROW_FAMILIES = ("softmax", "layernorm", "rmsnorm")
RESIDENT_SHAPE = {"M": 64, "N": 4096}   # 4096 % (256 threads * 8) == 0: the single-read path


@pytest.mark.parametrize("family,target", list(itertools.product(ROW_FAMILIES, TARGETS)))
def test_row_templates_read_a_fitting_row_once_into_registers(family: str, target: str,
                                                              tmp_path_factory: pytest.TempPathFactory) -> None:
    """Rows that fit take the single-read path: 16-byte loads straight into registers, one barrier (for the
    cross-wave reduction), no shared-memory copy of the row; other rows take the multi-pass kernel."""
    module = generated(tmp_path_factory, family)
    src = module.lower(target, shape=RESIDENT_SHAPE).kernel_source
    assert "resident_kernel" in src and "uint4" in src
    assert src.count("__syncthreads") <= 1
    assert module.shared_memory_bytes(module.lower(target, shape=RESIDENT_SHAPE)) <= 4096   # reduction scratch
    assert "resident_kernel" not in module.lower(target, shape={"M": 64, "N": 4000}).kernel_source


@pytest.mark.toolchain
@pytest.mark.parametrize("family", ROW_FAMILIES)
def test_resident_rows_compile_for_gfx942_without_spills(family: str,
                                                         tmp_path_factory: pytest.TempPathFactory) -> None:
    from porter.verify.compile import compile_generated

    module = generated(tmp_path_factory, family)
    comp = compile_generated(module, shape={"M": 64, "N": 16384})   # the longest row the path takes
    assert comp["status"] == "ok", comp.get("errors")
    k = comp["kernel"]
    assert k["name"].startswith("resident_kernel") and k["vgpr_spills"] == 0 and k["sgpr_spills"] == 0
    assert k["instructions"]["scratch"] == 0


@pytest.mark.parametrize("params", [{"flat": True, "bias": False, "scale": True, "dtype": "float32"},
                                    {"flat": False, "bias": True, "dtype": "float16"}])
def test_elementwise_timing_counts_the_bytes_its_cases_move(params: dict,
                                                            tmp_path_factory: pytest.TempPathFactory) -> None:
    """The bandwidth of `--bench`/verify is work(shape) over the time of one call on make_case(shape): a flat
    module ignores M, so its timed shape and its byte count are over N alone (was M x N, a 8192x overcount)."""
    mod = generated(tmp_path_factory, "elementwise", **params)
    case = mod.make_case(mod.BENCH_SHAPE, 0, "cpu")
    moved = case["x"].numel() * case["x"].element_size() * 2
    if not params["flat"]:
        assert mod.BENCH_SHAPE["M"] > 1
    assert mod.work(mod.BENCH_SHAPE)[1] == moved
    assert moved >= 2 * 64 * 2 ** 20, "the timed case must be large enough to measure bandwidth"
