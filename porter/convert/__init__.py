"""`porter convert`: recognized kernel -> TileLang module, rendered from porter/families/<family>/.

`convert(file, ...)` is the library call (porter.convert.pipeline); porter.cli.convert prints what it returns."""

from porter.convert.params import ParamError
from porter.convert.pipeline import ConvertError, Converted, convert, convert_kernel
from porter.convert.render import (list_configs, list_families, load_manifest, render, select_config,
                                   write_module)

__all__ = ["ConvertError", "Converted", "ParamError", "convert", "convert_kernel", "list_configs", "list_families",
           "load_manifest", "render", "select_config", "write_module"]
