/*
 * A header-only GGUF v3 file from a published tensor table (tests/data/gguf/<model>/:
 * meta.tsv and tensors.tsv, see their source.txt). The tensor data is not there: the caller
 * gives the reader the size the file would have (data_end), or writes a sparse file.
 */
#ifndef VP_TEST_GGUF_TABLE_H
#define VP_TEST_GGUF_TABLE_H

#include <stddef.h>
#include <stdint.h>

/* The header's bytes (malloc'd; NULL on a malformed table, with a message on stderr) and
 * the end of the tensor data it describes (header padded to 32 + every tensor, aligned). */
unsigned char *vp_gguf_table_build(const char *dir, size_t *len, uint64_t *data_end);

#endif
