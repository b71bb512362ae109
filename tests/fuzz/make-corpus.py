#!/usr/bin/env python3
"""Regenerates the seed corpora in tests/fuzz/corpus/ (deterministic).

Seeds: real config.json and index files from tests/data/configs, small safetensors and GGUF files
written here, every truncation of those, and the invalid cases the Check suites test.
Crashes found by fuzzing are added by hand as tests/fuzz/corpus/<target>/crash-*; the script
never deletes a file. Inputs that break an invariant on the current code wait in
tests/fuzz/pending/<target>/ (not replayed) until the library is fixed.
Run from the repository root: python3 tests/fuzz/make-corpus.py
"""
import json
import os
import struct

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
CONFIGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "configs")


def put(target, name, data):
    d = os.path.join(ROOT, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def safetensors(tensors, meta=True):
    header = {"__metadata__": {"format": "pt"}} if meta else {}
    at = 0
    bits = {"BOOL": 8, "U8": 8, "I8": 8, "F8_E4M3": 8, "F16": 16, "BF16": 16, "I32": 32,
            "F32": 32, "F64": 64, "F4": 4}
    for name, dtype, shape in tensors:
        n = 1
        for s in shape:
            n *= s
        size = (n * bits[dtype] + 7) // 8
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [at, at + size]}
        at += size
    h = json.dumps(header, separators=(",", ":")).encode()
    return struct.pack("<Q", len(h)) + h + b"\0" * at


def gstr(s):
    b = s.encode("utf-8") if isinstance(s, str) else s
    return struct.pack("<Q", len(b)) + b


def gguf(tensors, kv, version=3, alignment=32):
    out = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(kv))
    for key, vtype, value in kv:
        out += gstr(key) + struct.pack("<I", vtype) + value
    sizes = {0: (1, 4), 1: (1, 2), 2: (32, 18), 8: (32, 34), 12: (256, 144), 14: (256, 210),
             30: (1, 2), 39: (32, 17)}
    offset = 0
    for name, dims, t in tensors:
        out += gstr(name) + struct.pack("<I", len(dims))
        for d in dims:
            out += struct.pack("<Q", d)
        n = 1
        for d in dims:
            n *= d
        blk, size = sizes[t]
        out += struct.pack("<IQ", t, offset)
        offset = (offset + n // blk * size + alignment - 1) // alignment * alignment
    out += b"\0" * ((-len(out)) % alignment)
    return out + b"\0" * offset


def main():
    # (re)write the seeds; every other file is kept: the crash-* inputs found by fuzzing and
    # the regression inputs added by hand (a seed this script no longer writes is removed
    # by hand)
    # ---- json and config: real configs, then broken variants
    picks = ["meta-llama__Meta-Llama-3.1-8B", "openai__gpt-oss-20b", "deepseek-ai__DeepSeek-V3",
             "tiiuae__falcon-7b", "Qwen__Qwen3-30B-A3B", "mistralai__Mixtral-8x7B-v0.1",
             "google__gemma-2b-it", "meta-llama__Llama-4-Scout-17B-16E-Instruct",
             "IrfanUruchi__Llama-2-13B-Computer-Engineering__bnb-nf4", "Qwen__Qwen3-32B-FP8",
             "microsoft__phi-4"]
    for p in picks:
        with open(os.path.join(CONFIGS, p, "config.json"), "rb") as f:
            data = f.read()
        put("config", p + ".json", data)
        put("json", p + ".json", data)
        put("config", p + "-cut.json", data[: len(data) // 2])
    for name in ["openai-community__gpt2", "google__gemma-3-1b-it", "deepseek-ai__DeepSeek-V2-Lite"]:
        with open(os.path.join(CONFIGS, name, "config.mlc_preset.json"), "rb") as f:
            put("config", name + ".json", f.read())
    invalid = {
        "dup": '{"a": 1, "a": 2}', "trailing": '{"a": 1} x', "comma": '{"a": 1,}',
        "deep": "[" * 300, "ctrl": '{"a": "\x01"}', "esc": '{"a": "\\q"}',
        "surrogate": '{"a": "\\ud800"}', "pair": '{"a": "\\ud83d\\ude00"}',
        "nul": '{"a": "\\u0000"}', "bom": "\ufeff{}", "num": "[01, -, 1., 1e, -0, 1E+5]",
        "big": "[18446744073709551616, -9223372036854775809, 1e400]", "empty": "",
        "words": "[true, false, null, tru]", "str": '"unterminated', "lines": '{\n"a":\n[1,\n2,]}',
    }
    for k, v in invalid.items():
        put("json", "invalid-" + k, v)
    put("json", "invalid-utf8", b'{"a": "\xc0\xaf"}')
    # the tree reader's inline steps and where they hand over to the general ones: members
    # with spaces around ':', keys and strings with escapes, controls or UTF-8 at 8-, 16- and
    # 32-byte boundaries, numbers at the limits (19 and 20 digits, leading zeros, fractions
    # with and without digits, exponents), arrays with a comma before ']'
    inline = {
        "members": '{"a" : 1 ,\n  "b":[1 , 2],"c"\t:\r\n"x" , "d":{} ,"e":[ ]}',
        "member-no-colon": '{"a":1, "b" 2}', "member-comma-end": '{"a":1 , }',
        "key-escapes": '{"abcdefg\\"":1, "abcdefgh\\u00e9":2, "abcdefghijklmno\\n":3}',
        "key-utf8": '{"abcdefg\u00e9":1, "abcdefghijklmnop\u00e9":2}',
        "str-boundaries": '["abcdefghijklmnopqrstuvwxyz012345", "abcdefghijklmnopqrstuvwxyz0123456",'
                          ' "abcdefghijklmnopqrstuvwxyz01234\\"", "abcdefghijklmnopqrstuvwxyz01234\u00e9"]',
        "str-ctrl-late": '["abcdefghijklmnopqrstuvwxyz0123\x01"]',
        "numbers": "[0, -0, 1234567890123456789, 12345678901234567890, 18446744073709551615, "
                   "18446744073709551616, 0.5, -0.25, 1.0e5, 1E-5, 500000.0, 1e-05, 0.02]",
        "number-bad": "[1.]", "number-bad2": "[00]", "number-bad3": "[1.5e]", "number-bad4": "[-]",
        "array-comma-end": "[1 , 2 , ]", "array-empty-comma": "[,]",
    }
    for k, v in inline.items():
        put("json", "inline-" + k, v)
    # the tree's member and element loop (',' then nothing, a space, or a line break and
    # spaces; a plain key, '":' and at most one space): indentations of 7 to 17 spaces (a
    # word of them and what follows), a tab, CRLF or a second line break in them, ': ' then
    # more spaces, and each cut of the last 24 bytes (the loop's tests near the end)
    for ind in (0, 1, 7, 8, 9, 15, 16, 17):
        pad = "\n" + " " * ind
        doc = ('{"a": 1,' + pad + '"bb": "x",' + pad + '"c": [1,' + pad + '2.5,' + pad + '"s",' +
               pad + 'true,' + pad + '{"d": null}],' + pad + '"e": false,' + pad + '"f": -3}')
        put("json", "loop-indent%d" % ind, doc)
        for cut in range(1, 25):
            put("json", "loop-indent%d-cut%d" % (ind, cut), doc[:-cut])
    loop = {
        "tab": '{"a": 1,\n\t"b": 2}', "crlf": '{"a": 1,\r\n  "b": 2}',
        "two-breaks": '{"a": 1,\n\n  "b": [1,\n\n 2]}', "colon-spaces": '{"a": 1, "b":  2}',
        "colon-tab": '{"a": 1, "b":\t2}', "colon-break": '{"a": 1, "b":\n2}',
        "space-comma": '{"a": 1 , "b": 2}', "two-spaces": '{"a": 1,  "b": [1,  2]}',
        "comma-close": '{"a": 1,\n  }', "comma-close-array": '[1,\n  ]',
        "key-escape": '{"a": 1,\n  "b\\n": 2}', "key-utf8": '{"a": 1,\n  "\u00e9": 2}',
        "value-bad": '{"a": 1,\n  "b": tru}', "value-ctrl": '{"a": 1,\n  "b": \x01}',
        "element-bad": '[1,\n  nul]', "dup-late": '{"a": 1,\n  "b": 2,\n  "a": 3}',
        "nested-close": '{"a": [1,\n    {"b": [2,\n      3]}],\n  "c": {}}',
    }
    for k, v in loop.items():
        put("json", "loop-" + k, v)
    put("config", "bad-type", '{"model_type": "bert"}')
    put("config", "bad-heads", '{"model_type": "llama", "vocab_size": 10, "hidden_size": 64, '
        '"num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 3, '
        '"intermediate_size": 8}')
    put("config", "huge", '{"model_type": "llama", "vocab_size": 16777216, "hidden_size": 16777216, '
        '"num_hidden_layers": 4096, "num_attention_heads": 1, "intermediate_size": 16777216}')
    put("config", "moe-huge", '{"model_type": "deepseek_v3", "vocab_size": 16777216, "hidden_size": 16777216, '
        '"num_hidden_layers": 4096, "num_attention_heads": 16777216, "intermediate_size": 16777216, '
        '"moe_intermediate_size": 16777216, "n_routed_experts": 16777216, "num_experts_per_tok": 1, '
        '"kv_lora_rank": 16777216, "qk_nope_head_dim": 16777216, "qk_rope_head_dim": 16777216, '
        '"v_head_dim": 16777216, "q_lora_rank": 16777216}')
    put("config", "quant", '{"model_type": "llama", "vocab_size": 100, "hidden_size": 64, '
        '"num_hidden_layers": 2, "num_attention_heads": 8, "intermediate_size": 128, '
        '"quantization_config": {"quant_method": "gptq", "bits": 3, "group_size": -1}}')
    # ---- safetensors
    files = {
        "small": safetensors([("a", "F32", [2, 3]), ("b", "BF16", [4]), ("c", "U8", [5])]),
        "bnb": safetensors([("w.weight", "U8", [8, 1]), ("w.weight.absmax", "F32", [1]),
                            ("n.weight", "BF16", [4]), ("r.inv_freq", "F32", [2])]),
        "scalar": safetensors([("s", "F64", []), ("e", "F16", [0, 3]), ("f", "F4", [3])], meta=False),
        "empty": safetensors([], meta=False),
    }
    for k, v in files.items():
        put("safetensors", k, v)
        for cut in range(0, len(v), max(1, len(v) // 12)):
            put("safetensors", "%s-cut%d" % (k, cut), v[:cut])
    put("safetensors", "huge-len", struct.pack("<Q", 2**64 - 1) + b"{}")
    put("safetensors", "overlap", struct.pack("<Q", 90) + b'{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[4],"data_offsets":[2,6]}}'[:90] + b"\0" * 6)
    h = b'{"a":{"dtype":"U8","shape":[4294967296,4294967296],"data_offsets":[0,4]}}'
    put("safetensors", "overflow", struct.pack("<Q", len(h)) + h + b"\0" * 4)
    # spans not stored while they follow one another: a run, then one that overlaps inside
    # it (the error names a tensor of the run); a run, then the rest out of order but whole
    def st_raw(members, payload):
        h = ("{" + ",".join('"%s":{"dtype":"U8","shape":[%d],"data_offsets":[%d,%d]}'
                            % (k, e - b, b, e) for k, b, e in members) + "}").encode()
        return struct.pack("<Q", len(h)) + h + b"\0" * payload
    put("safetensors", "run-then-overlap", st_raw([("a", 0, 4), ("b", 4, 8), ("c", 4, 6)], 8))
    put("safetensors", "run-then-unsorted", st_raw([("a", 0, 4), ("c", 8, 12), ("b", 4, 8)], 12))
    # the fast path's data offsets of 8 to 16 digits taken again from the tensor before (the
    # same digits), or read (other digits of the same length, a longer run, 17 digits); the
    # data section is short, so each is also an offset outside it
    def st_offs(pairs, dtype="U8"):
        h = ("{" + ",".join('"t%d":{"dtype":"%s","shape":[%d],"data_offsets":[%d,%d]}'
                            % (i, dtype, e - b, b, e) for i, (b, e) in enumerate(pairs)) + "}").encode()
        return struct.pack("<Q", len(h)) + h + b"\0" * 16
    put("safetensors", "offsets-run", st_offs([(0, 12345678), (12345678, 23456789012),
                                               (23456789012, 1234567890123456),
                                               (1234567890123456, 12345678901234567)]))
    put("safetensors", "offsets-same-length", st_offs([(0, 12345678), (12345679, 22345678)]))
    put("safetensors", "offsets-longer", st_offs([(0, 12345678), (123456789, 223456789)]))
    put("safetensors", "offsets-shorter", st_offs([(0, 123456789), (12345678, 123456789)]))
    # a last offset of as many digits as the one before it, read as two words: digits, a
    # fraction, an exponent, a leading zero, a letter among them
    for k, last in {"digits": "223456789", "fraction": "22345678.9", "exponent": "2234567e8",
                    "zero": "023456789", "letter": "22345x789", "sixteen": "1234567890123457"}.items():
        h = ('{"a":{"dtype":"U8","shape":[123456789],"data_offsets":[0,123456789]},'
             '"b":{"dtype":"U8","shape":[100000000],"data_offsets":[123456789,%s]}}' % last).encode()
        put("safetensors", "offsets-last-" + k, struct.pack("<Q", len(h)) + h + b"\0" * 16)
    # dtypes the fast path reads as a word: plain but not capitals (an unknown dtype, as the
    # general steps say), 7 and 8 bytes, an escape, a control, UTF-8
    for k, dt in {"lower": "bf16", "space": "F 16", "seven": "F8_E4M3", "eight": "F8_E4M3X",
                  "escape": "BF\\u0031\\u0036", "ctrl": "BF\x0116", "utf8": "BF\u00e9"}.items():
        h = ('{"a":{"dtype":"%s","shape":[2],"data_offsets":[0,2]}}' % dt).encode()
        put("safetensors", "dtype-" + k, struct.pack("<Q", len(h)) + h + b"\0" * 2)
    # names: more than a thousand (partitioned into buckets), with and without a repeat;
    # names whose hashes share a slot (the check gives up and sorts)
    many = [("model.layers.%d.w" % i, i, i + 1) for i in range(2500)]
    put("safetensors", "names-2500", st_raw(many, 2500))
    put("safetensors", "names-2500-dup", st_raw(many[:2000] + [("model.layers.7.w", 2000, 2001)] +
                                                many[2001:], 2500))
    def key_hash(b):  # vp__json_hash() in lib/json.h
        m, h, n = 2**64 - 1, len(b), len(b)
        def mix(h, w):
            h = ((h ^ w) * 0x9E3779B97F4A7C15) & m
            return h ^ (h >> 29)
        if n >= 8:
            j = 0
            while n - j > 8:
                h = mix(h, int.from_bytes(b[j:j + 8], "little"))
                j += 8
            w = int.from_bytes(b[n - 8:], "little")
        elif n >= 4:
            w = int.from_bytes(b[:4], "little") | int.from_bytes(b[n - 4:], "little") << 32
        elif n > 0:
            w = b[0] | b[n // 2] << 8 | b[n - 1] << 16
        else:
            return 0
        return mix(h, w) >> 32
    def name_hash(b):  # vp__json_name_hash() in lib/json.h (where there are 128-bit integers)
        m, n = 2**64 - 1, len(b)
        k1, k2 = 0xa0761d6478bd642f, 0xe7037ed1a0b428db
        le = lambda x: int.from_bytes(x, "little")
        def mum(x, y):
            p = x * y
            return (p & m) ^ (p >> 64)
        seed = n ^ k1
        if n > 16:
            j = 0
            while n - j > 16:
                seed = mum(le(b[j:j + 8]) ^ k2, le(b[j + 8:j + 16]) ^ seed)
                j += 16
            a, c = le(b[n - 16:n - 8]), le(b[n - 8:])
        elif n >= 8:
            a, c = le(b[:8]), le(b[n - 8:])
        elif n >= 4:
            a, c = le(b[:4]), le(b[n - 4:])
        else:
            a, c = (b[0] << 16 | b[n // 2] << 8 | b[n - 1]) if n else 0, 0
        h = mum(a ^ k2, c ^ seed)
        return mum(h ^ k1, n ^ k2) >> 32
    coll, i = [], 0
    while len(coll) < 40:
        if name_hash(b"t%d" % i) & 127 == 0:
            coll.append("t%d" % i)
        i += 1
    put("safetensors", "names-colliding", st_raw([(k, j, j + 1) for j, k in enumerate(coll)], 40))
    coll[30] = coll[10]
    put("safetensors", "names-colliding-dup",
        st_raw([(k, j, j + 1) for j, k in enumerate(coll)], 40))
    # names of every length from 0 to 40 (each way of the name hash), then one repeated
    lens = [("n" * k, k * (k - 1) // 2, k * (k + 1) // 2) for k in range(41)]
    put("safetensors", "names-lengths", st_raw(lens, 820))
    put("safetensors", "names-lengths-dup", st_raw(lens[:38] + [("n" * 33, 703, 741)] + lens[39:], 820))
    # objects that repeat the one before up to its data offsets (dtype and shape taken
    # again), or differ from it in one byte of a dimension, of the dtype, or by one more
    # dimension; dimensions of 1 to 9 digits (one word, or more), '.' or 'e' after one
    def st_shapes(members, payload=None):
        h, at = [], 0
        for i, (dt, shape) in enumerate(members):
            n = 1
            for d in shape:
                n *= d
            size = n * {"U8": 1, "BF16": 2, "F16": 2}[dt]
            h.append('"t%d":{"dtype":"%s","shape":[%s],"data_offsets":[%d,%d]}'
                     % (i, dt, ",".join(map(str, shape)), at, at + size))
            at += size
        h = ("{" + ",".join(h) + "}").encode()
        return struct.pack("<Q", len(h)) + h + b"\0" * (at if payload is None else payload)
    put("safetensors", "prefix-repeated", st_shapes([("BF16", [4, 4])] * 4 + [("BF16", [4, 5]),
        ("F16", [4, 5]), ("F16", [4, 5, 1]), ("F16", [4, 5]), ("U8", [7]), ("U8", [7])]))
    # two shapes that alternate (the fast path's two remembered objects), a third between
    # them, three dimensions, a last one that differs from a remembered one in one digit
    A, B, C = ("BF16", [4, 5]), ("BF16", [5, 4]), ("F16", [5, 4])
    put("safetensors", "prefix-two", st_shapes([A, B, A, B, C, A, B, B, A, C, C]))
    put("safetensors", "prefix-two-dims", st_shapes([("U8", [2, 3, 4]), ("U8", [4, 3, 2]),
        ("U8", [2, 3, 4]), ("U8", [4, 3, 2]), ("U8", [4, 3, 2, 1]), ("U8", [2, 3, 4])]))
    put("safetensors", "prefix-two-differ", st_shapes([A, B, A, ("BF16", [4, 6]), B, ("BF16", [5, 5])]))
    put("safetensors", "prefix-two-short", st_shapes([A, B, A, B, A], 100))
    put("safetensors", "prefix-digits", st_shapes([("U8", [d]) for d in
        (1, 12, 123, 1234, 12345, 123456, 1234567, 12345678, 123456789)], 16))
    # (a short data section: the large offsets fall outside it, after every dimension is read)
    for k, dim in {"fraction": "7.0", "exponent": "7e0", "zero": "07", "eight": "00000007"}.items():
        h = ('{"a":{"dtype":"U8","shape":[7],"data_offsets":[0,7]},'
             '"b":{"dtype":"U8","shape":[%s],"data_offsets":[7,14]}}' % dim).encode()
        put("safetensors", "prefix-dim-" + k, struct.pack("<Q", len(h)) + h + b"\0" * 14)
    # ---- gguf
    kv = [("general.architecture", 8, gstr("llama")),
          ("llama.block_count", 4, struct.pack("<I", 2)),
          ("llama.embedding_length", 4, struct.pack("<I", 64)),
          ("llama.attention.head_count", 4, struct.pack("<I", 8)),
          ("llama.attention.head_count_kv", 4, struct.pack("<I", 2)),
          ("tokenizer.ggml.tokens", 9, struct.pack("<IQ", 8, 2) + gstr("a") + gstr("b")),
          ("general.alignment", 4, struct.pack("<I", 32))]
    g = gguf([("tok", [64, 2], 1), ("q4", [256], 12), ("q6", [512], 14), ("q8", [64], 8),
              ("mx", [32], 39), ("f", [3], 0)], kv)
    put("gguf", "llama", g)
    for cut in range(0, len(g), 7):
        put("gguf", "llama-cut%d" % cut, g[:cut])
    put("gguf", "v2", gguf([("f", [8], 0)], [], version=2))
    put("gguf", "v1", gguf([("f", [8], 0)], [], version=1))
    put("gguf", "huge-count", b"GGUF" + struct.pack("<IQQ", 3, 2**64 - 1, 2**64 - 1))
    put("gguf", "huge-string", b"GGUF" + struct.pack("<IQQQ", 3, 0, 1, 2**64 - 1) + b"x" * 16)
    put("gguf", "nested-array", b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + gstr("k") +
        struct.pack("<IIQ", 9, 9, 1) + struct.pack("<IQ", 4, 0))
    # token strings (checked eight bytes at a time when ASCII): long, short, UTF-8, then a
    # NUL in one, invalid UTF-8 in one, and one cut short
    def tokens_kv(toks):
        v = struct.pack("<IQ", 8, len(toks)) + b"".join(struct.pack("<Q", len(t)) + t
                                                        for t in toks)
        return [("tokenizer.ggml.tokens", 9, v)]
    good = [b"a", b"hello_world_token", "caf\u00e9".encode(), "\u4e2d".encode(), b"seven_b"]
    put("gguf", "tokens", gguf([("f", [8], 0)], tokens_kv(good)))
    put("gguf", "tokens-nul", gguf([("f", [8], 0)], tokens_kv(good + [b"0123456\0"])))
    put("gguf", "tokens-bad-utf8", gguf([("f", [8], 0)], tokens_kv(good + [b"x\xc0\xafyyyyyyyyyy"])))
    t = gguf([("f", [8], 0)], tokens_kv(good))
    put("gguf", "tokens-cut", t[:70])
    # ---- sheets: the examples, then broken ones
    ex = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")
    for name in sorted(os.listdir(ex)):
        if name.endswith(".toml"):
            with open(os.path.join(ex, name), "rb") as f:
                data = f.read()
            put("sheet", name, data)
            put("sheet", name + "-cut", data[: len(data) // 2])
    sheets = {
        "offers": '[[offer]]\nid = "a"\nmemory = "24 GB"\nprice = "47.14 USD"\nduration = "3 days"\n'
                  'available_from = "2026-12-01"\n[[evidence]]\noffer = "a"\nclaim = "device_total"\n'
                  'value = "24564 MiB"\nsource = "device_report"\nscope = { context = 4096 }\n',
        "layout": '[model]\nparameters = 70_000_000_000\n[workload]\nweights = "fp8"\n'
                  'framework = "vllm"\n[layout]\ngpus = 8\ntensor_parallel = 4\npipeline_parallel = 2\n',
        "bad-unit": '[reserve]\nother = 6\n', "bad-key": '[workload]\nkontext = 1\n',
        "bad-date": '[[offer]]\navailable_from = 2026-12-01\n', "escapes": '[sheet]\ntitle = "a\\u00e9\\t"\n',
        "huge": '[model]\nparameters = 9223372036854775807\n[workload]\nweights = "fp32"\n',
    }
    for k, v in sheets.items():
        put("sheet", k, v)
    # ---- safetensors indexes: the real ones, cut in half, then broken ones
    for name in sorted(os.listdir(CONFIGS)):
        path = os.path.join(CONFIGS, name, "index.json")
        if os.path.exists(path):
            with open(path, "rb") as f:
                data = f.read()
            put("index", name + ".json", data)
            put("index", name + "-cut.json", data[: len(data) // 2])
    indexes = {
        "minimal": '{"metadata": {"total_size": 16}, "weight_map": {"a": "model.safetensors"}}',
        "two-shards": '{"weight_map": {"a": "m-00001.safetensors", "b": "m-00002.safetensors", '
                      '"c": "m-00001.safetensors"}}',
        "no-map": '{"metadata": {"total_size": 16}}', "slash": '{"weight_map": {"a": "../x"}}',
        "empty-name": '{"weight_map": {"a": ""}}', "not-string": '{"weight_map": {"a": 1}}',
        "negative": '{"metadata": {"total_size": -1}, "weight_map": {}}',
        "float": '{"metadata": {"total_size": 1.5}, "weight_map": {}}', "array": '[]',
        "dup": '{"weight_map": {"a": "x", "a": "y"}}',
    }
    for k, v in indexes.items():
        put("index", k, v)
    # ---- quantities
    for i, q in enumerate(["24 GB", "22.35 GiB", "24564 MiB", "512 B", "1e9 B", "24", "24 Gb",
                           "-1 GB", "0.5 B", "18446744073709551615 B", "18446744073709551616 B",
                           "1e100 B", "16777215.99999 TiB", "  6 GiB ", "1.2.3 GB", "0x10 B",
                           "100000000000000000000000000000000000000000000e-35 GB", ""]):
        put("quantity", "q%02d" % i, q)


if __name__ == "__main__":
    main()
