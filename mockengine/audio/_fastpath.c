/* The append path's per-frame work in C (issue 15, docs/cpu.md): the VAD's arithmetic ("Sixth pass") and
 * a bare append's audio ("Twenty-first pass").
 *
 * `vad_input(frame, min_sum_square)` does for one 24 kHz PCM16 frame what `FrameClassifier`'s pure
 * Python path does with ~10 numpy calls: the 24 -> 16 kHz step of `vad.to_vad_rate` (per 3 input
 * samples x0, x1, x2: x0 and floor((x1 + x2) / 2)) and the energy gate (the 16 kHz samples' sum of
 * squares against `min_sum_square`). It returns the 16 kHz samples as PCM16 bytes for webrtcvad, or None
 * when the frame is under the gate (most frames of a conversation: no bytes are made for them).
 *
 * Exactness: the samples are integers, the sum of squares an exact 64-bit integer (< 2**40 for any
 * frame webrtcvad takes), compared as a double, which holds it exactly; the Python path's float64 sums
 * are exact too, so both give the same bytes and the same decision for every input
 * (tests/unit/test_vad_native.py).
 *
 * Plain CPython C API, no numpy: built by setup.py (`pip install -e .`); `vad.py` falls back to the pure
 * Python path when the module is missing.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

static inline int32_t
sample_at(const unsigned char *p, Py_ssize_t i)
{
    /* a little-endian int16; on a little-endian host one load (gcc turns the memcpy into it) */
#if PY_LITTLE_ENDIAN
    int16_t value;
    memcpy(&value, p + 2 * i, sizeof value);
    return value;
#else
    return (int16_t)(uint16_t)(p[2 * i] | (p[2 * i + 1] << 8));
#endif
}

static inline void
put_sample(unsigned char *p, Py_ssize_t i, int32_t value)
{
#if PY_LITTLE_ENDIAN
    int16_t narrow = (int16_t)value;
    memcpy(p + 2 * i, &narrow, sizeof narrow);
#else
    p[2 * i] = (unsigned char)(value & 0xff);
    p[2 * i + 1] = (unsigned char)((value >> 8) & 0xff);
#endif
}

/* Frames up to this many sample triples (60 ms at 24 kHz; webrtcvad's longest is 30 ms) are converted on
 * the stack; longer ones in a heap buffer. */
#define STACK_GROUPS 480

static PyObject *
vad_input(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "vad_input(frame, min_sum_square) takes 2 arguments");
        return NULL;
    }
    double min_sum_square = PyFloat_AsDouble(args[1]);
    if (min_sum_square == -1.0 && PyErr_Occurred()) {
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    PyObject *result = NULL;
    unsigned char stack[STACK_GROUPS * 4];
    unsigned char *out = stack;
    if (view.len % 6 != 0) {
        PyErr_Format(PyExc_ValueError, "frame must be whole groups of 3 PCM16 samples, got %zd bytes",
                     view.len);
        goto done;
    }
    const unsigned char *in = (const unsigned char *)view.buf;
    Py_ssize_t groups = view.len / 6;
    if (groups > STACK_GROUPS && (out = PyMem_Malloc(groups * 4)) == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int64_t sum_square = 0;
    for (Py_ssize_t g = 0; g < groups; g++) {
        int32_t first = sample_at(in, 3 * g);
        int32_t pair = sample_at(in, 3 * g + 1) + sample_at(in, 3 * g + 2);
        /* floor(pair / 2) without relying on how >> treats a negative number */
        int32_t second = (pair - (pair & 1)) / 2;
        sum_square += (int64_t)first * first + (int64_t)second * second;
        put_sample(out, 2 * g, first);
        put_sample(out, 2 * g + 1, second);
    }
    if ((double)sum_square < min_sum_square) {
        result = Py_NewRef(Py_None);
    }
    else {
        result = PyBytes_FromStringAndSize((const char *)out, groups * 4);
    }
    if (out != stack) {
        PyMem_Free(out);
    }
done:
    PyBuffer_Release(&view);
    return result;
}

/* `bare_append_audio(shapes, max_chars, b64decode, raw)`: what `client_events._bare_append_audio_py`
 * does, without its ~10 Python-level calls (startswith, endswith, find, a slice, the decode): for the
 * first (prefix, suffix) pair of `shapes` that `raw` starts and ends with, the audio text between them is
 * decoded by `b64decode(view, None, True)` (pybase64: it validates as it decodes) when it is canonical
 * base64 of at most `max_chars` characters (a length that is a multiple of 4, `=` only in the last two
 * places); None for anything else, and for text the decoder refuses (its binascii.Error / ValueError).
 * The decoder reads a memoryview of the string's own characters: no slice is copied. A string that is not
 * pure ASCII cannot be a bare append (base64 and the shapes are ASCII): None. `shapes` comes from Python
 * so that the shapes are written in one place (client_events._BARE_APPENDS).
 */
static PyObject *
bare_append_audio(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError,
                        "bare_append_audio(shapes, max_chars, b64decode, raw) takes 4 arguments");
        return NULL;
    }
    PyObject *shapes = args[0], *decode = args[2], *raw = args[3];
    Py_ssize_t max_chars = PyLong_AsSsize_t(args[1]);
    if (max_chars == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (!PyTuple_Check(shapes)) {
        PyErr_SetString(PyExc_TypeError, "shapes must be a tuple of (prefix, suffix) pairs");
        return NULL;
    }
    if (!PyUnicode_Check(raw)) {
        PyErr_SetString(PyExc_TypeError, "raw must be a str");
        return NULL;
    }
    if (PyUnicode_READY(raw) < 0) {
        return NULL;
    }
    if (!PyUnicode_IS_ASCII(raw)) {
        Py_RETURN_NONE;
    }
    const char *text = (const char *)PyUnicode_DATA(raw);
    Py_ssize_t n = PyUnicode_GET_LENGTH(raw);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(shapes); i++) {
        PyObject *pair = PyTuple_GET_ITEM(shapes, i);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "shapes must be a tuple of (prefix, suffix) pairs");
            return NULL;
        }
        PyObject *prefix = PyTuple_GET_ITEM(pair, 0), *suffix = PyTuple_GET_ITEM(pair, 1);
        if (!PyUnicode_Check(prefix) || !PyUnicode_Check(suffix) || PyUnicode_READY(prefix) < 0 ||
            PyUnicode_READY(suffix) < 0 || !PyUnicode_IS_ASCII(prefix) || !PyUnicode_IS_ASCII(suffix)) {
            PyErr_SetString(PyExc_TypeError, "shapes must be pairs of ASCII str");
            return NULL;
        }
        Py_ssize_t prefix_len = PyUnicode_GET_LENGTH(prefix), suffix_len = PyUnicode_GET_LENGTH(suffix);
        if (prefix_len > n || suffix_len > n ||
            memcmp(text, PyUnicode_DATA(prefix), prefix_len) != 0 ||
            memcmp(text + n - suffix_len, PyUnicode_DATA(suffix), suffix_len) != 0) {
            continue;
        }
        Py_ssize_t start = prefix_len, length = n - suffix_len - prefix_len;
        /* (negative where the prefix and the suffix overlap: not an append) */
        if (length < 0 || length > max_chars || length % 4 != 0 ||
            (length >= 4 && memchr(text + start, '=', (size_t)(length - 2)) != NULL)) {
            Py_RETURN_NONE;
        }
        PyObject *view = PyMemoryView_FromMemory((char *)text + start, length, PyBUF_READ);
        if (view == NULL) {
            return NULL;
        }
        PyObject *call_args[3] = {view, Py_None, Py_True};
        PyObject *audio = PyObject_Vectorcall(decode, call_args, 3, NULL);
        Py_DECREF(view);
        if (audio == NULL && PyErr_ExceptionMatches(PyExc_ValueError)) {
            /* binascii.Error is a ValueError: a character outside the alphabet; the general parse takes
             * the frame and refuses it as it does */
            PyErr_Clear();
            Py_RETURN_NONE;
        }
        return audio;
    }
    Py_RETURN_NONE;
}

static PyMethodDef fastpath_methods[] = {
    {"vad_input", (PyCFunction)(void (*)(void))vad_input, METH_FASTCALL,
     "vad_input(frame, min_sum_square, /) -> bytes | None\n\n"
     "One 24 kHz PCM16 frame (whole groups of 3 samples) -> its 16 kHz PCM16 samples (vad.to_vad_rate),\n"
     "or None when their sum of squares is under min_sum_square (the energy gate).\n"
     "Raises ValueError for a length that is not a multiple of 6 bytes."},
    {"bare_append_audio", (PyCFunction)(void (*)(void))bare_append_audio, METH_FASTCALL,
     "bare_append_audio(shapes, max_chars, b64decode, raw, /) -> bytes | None\n\n"
     "The decoded audio of a bare input_audio_buffer.append (client_events.bare_append_audio), or None.\n"
     "shapes: ((prefix, suffix), ...) ASCII str pairs; max_chars: the longest audio text taken;\n"
     "b64decode: pybase64.b64decode, called as b64decode(view, None, True)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef fastpath_module = {
    PyModuleDef_HEAD_INIT,
    "mockengine.audio._fastpath",
    "The append path's per-frame work in C (vad.py, client_events.py; pure Python fallbacks there).",
    0,
    fastpath_methods,
};

PyMODINIT_FUNC
PyInit__fastpath(void)
{
    return PyModule_Create(&fastpath_module);
}
