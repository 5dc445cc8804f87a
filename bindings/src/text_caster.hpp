// gpucap._core: C++ text reaches Python as str, never as a UnicodeDecodeError.
//
// Text from C++ may hold bytes that are not UTF-8: names and attributes of results files written
// by older versions or by hand, data files' contents quoted in error messages, paths on disk.
// pybind11 decodes std::string strictly, so one such byte would make `results.scenario_name` (or
// any property, dict or error message holding it) raise UnicodeDecodeError. Here std::string
// (and so const char*) is decoded with errors="replace": each invalid byte becomes U+FFFD, as
// Python's bytes.decode("utf-8", "replace") gives; paths decode as os.fsdecode does instead
// (path_from_bytes), where the bindings know them to be paths. A str argument with lone surrogates
// (a path that os.fsdecode made of bytes that are not UTF-8, text read with
// errors="surrogateescape") reaches C++ as those bytes instead of failing the call with
// "incompatible function arguments": a path then names its file, and the scenario loader reports
// other text with its line and column.
//
// Every source file of the module includes this header before it converts any std::string (a
// specialization must be seen before its first use); tests/python/test_text.py checks that
// every file does.
#pragma once
#include <Python.h>
#include <cstring>
#include <pybind11/pybind11.h>
#include <string>

namespace gpucap::bindings {

/// `bytes` as a Python str, invalid UTF-8 replaced by U+FFFD (never fails, but for memory).
inline pybind11::str text_from_bytes(const char* bytes, std::size_t size) {
  PyObject* s = PyUnicode_DecodeUTF8(bytes, static_cast<Py_ssize_t>(size), "replace");
  if (!s) throw pybind11::error_already_set();
  return pybind11::reinterpret_steal<pybind11::str>(s);
}

inline pybind11::str text_from_bytes(const std::string& bytes) {
  return text_from_bytes(bytes.data(), bytes.size());
}

/// A path's bytes as Python names them (os.fsdecode: a surrogate stands in for each byte that
/// is not UTF-8), so that the str opens the same file again.
inline pybind11::str path_from_bytes(const std::string& bytes) {
  PyObject* s =
      PyUnicode_DecodeFSDefaultAndSize(bytes.data(), static_cast<Py_ssize_t>(bytes.size()));
  if (!s) throw pybind11::error_already_set();
  return pybind11::reinterpret_steal<pybind11::str>(s);
}

/// Whether `text` is valid UTF-8 (no overlong forms, surrogates or code points above U+10FFFF),
/// Python's rule.
inline bool is_utf8(const char* text, std::size_t size) {
  const auto* s = reinterpret_cast<const unsigned char*>(text);
  std::size_t i = 0;
  while (i < size) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t n;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (size - i <= n) return false;
    if (s[i + 1] < lo || s[i + 1] > hi) return false;
    for (std::size_t k = 2; k <= n; ++k)
      if (s[i + k] < 0x80 || s[i + k] > 0xBF) return false;
    i += n + 1;
  }
  return true;
}

}  // namespace gpucap::bindings

namespace pybind11::detail {

/// std::string to str with errors="replace", and from a str with lone surrogates too (see the
/// top of this file).
template <>
struct type_caster<std::string> : string_caster<std::string> {
  bool load(handle src, bool convert) {
    if (string_caster<std::string>::load(src, convert)) return true;
    if (!src || !PyUnicode_Check(src.ptr())) return false;
    // Lone surrogates: os.fsdecode's stand-ins for the bytes of a name that is not UTF-8 (the
    // bytes themselves again), or any other (encoded as they are; the C++ readers refuse such
    // text with its place).
    PyObject* bytes = PyUnicode_AsEncodedString(src.ptr(), "utf-8", "surrogateescape");
    if (!bytes) {
      PyErr_Clear();
      bytes = PyUnicode_AsEncodedString(src.ptr(), "utf-8", "surrogatepass");
    }
    if (!bytes) {
      PyErr_Clear();
      return false;
    }
    value.assign(PyBytes_AS_STRING(bytes), static_cast<std::size_t>(PyBytes_GET_SIZE(bytes)));
    Py_DECREF(bytes);
    return true;
  }

  static handle cast(const std::string& src, return_value_policy, handle) {
    return gpucap::bindings::text_from_bytes(src).release();
  }
};

}  // namespace pybind11::detail
