#!/usr/bin/env python3
"""Writes lora-tiny-r8.gguf: a LoRA adapter laid out as llama.cpp's convert_lora_to_gguf.py
lays one out (GGUF v3, general.type = "adapter", adapter.type = "lora", tensors
blk.N.attn_{q,v}.weight.lora_{a,b}), for a tiny model (hidden 64, 2 layers), rank 8, f16.
Its tensor bytes: 2 layers x 2 modules x (64x8 + 8x64) values x 2 B = 8,192 B.
Synthetic (no real adapter is small enough to commit); run: python3 make-adapter.py"""
import struct

def s(x):
    b = x.encode()
    return struct.pack('<Q', len(b)) + b

kv = [
    (s('general.architecture'), 8, s('llama')),
    (s('general.type'), 8, s('adapter')),
    (s('adapter.type'), 8, s('lora')),
    (s('adapter.lora.alpha'), 6, struct.pack('<f', 16.0)),
]
H, R, F16 = 64, 8, 1
tensors = []
for layer in range(2):
    for mod in ('q', 'v'):
        tensors.append((f'blk.{layer}.attn_{mod}.weight.lora_a', (H, R)))
        tensors.append((f'blk.{layer}.attn_{mod}.weight.lora_b', (R, H)))
out = b'GGUF' + struct.pack('<IQQ', 3, len(tensors), len(kv))
for k, t, v in kv:
    out += k + struct.pack('<I', t) + v
off = 0
for name, dims in tensors:
    out += s(name) + struct.pack('<I', len(dims)) + b''.join(struct.pack('<Q', d) for d in dims)
    out += struct.pack('<IQ', F16, off)
    off += (dims[0] * dims[1] * 2 + 31) // 32 * 32
out += b'\0' * ((-len(out)) % 32)
out += b'\0' * off
open('lora-tiny-r8.gguf', 'wb').write(out)
