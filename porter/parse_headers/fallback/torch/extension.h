// porter fallback (used only when PyTorch itself is not on the include path): see porter_torch.h
#pragma once
#include <porter_torch.h>
