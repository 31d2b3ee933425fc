#pragma once
#include <porter_hip_stub.h>
