/* The VAD's per-frame arithmetic in one call (issue 15, docs/cpu.md "Sixth pass").
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

static PyMethodDef fastpath_methods[] = {
    {"vad_input", (PyCFunction)(void (*)(void))vad_input, METH_FASTCALL,
     "vad_input(frame, min_sum_square, /) -> bytes | None\n\n"
     "One 24 kHz PCM16 frame (whole groups of 3 samples) -> its 16 kHz PCM16 samples (vad.to_vad_rate),\n"
     "or None when their sum of squares is under min_sum_square (the energy gate).\n"
     "Raises ValueError for a length that is not a multiple of 6 bytes."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef fastpath_module = {
    PyModuleDef_HEAD_INIT,
    "mockengine.audio._fastpath",
    "The VAD's per-frame arithmetic in C (see vad.py; pure Python fallback there).",
    0,
    fastpath_methods,
};

PyMODINIT_FUNC
PyInit__fastpath(void)
{
    return PyModule_Create(&fastpath_module);
}
