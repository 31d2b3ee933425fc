"""`porter convert`: recognized kernel -> TileLang module, rendered from templates/<family>/."""

from porter.convert.params import ParamError
from porter.convert.render import (list_configs, list_families, load_manifest, render, select_config,
                                   write_module)

__all__ = ["ParamError", "list_configs", "list_families", "load_manifest", "render", "select_config",
           "write_module"]
