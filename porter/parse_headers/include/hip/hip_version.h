// porter stub: everything lives in porter_hip_stub.h
#pragma once
#include <porter_hip_stub.h>
