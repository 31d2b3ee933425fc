/* porter: minimal freestanding stddef.h (the libclang wheel ships no clang resource headers). */
#ifndef PORTER_STDDEF_H
#define PORTER_STDDEF_H
typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
#ifndef __cplusplus
typedef __WCHAR_TYPE__ wchar_t;
#endif
typedef long double max_align_t;
#ifdef __cplusplus
#define NULL nullptr
namespace std { typedef decltype(nullptr) nullptr_t; }
typedef decltype(nullptr) nullptr_t;
#else
#define NULL ((void*)0)
#endif
#define offsetof(t, d) __builtin_offsetof(t, d)
#endif
