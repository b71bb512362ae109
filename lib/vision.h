/*
 * The vision tower of a multimodal config.json (vision.c), private. Separate from
 * internal.h because it takes the JSON tree of json.h.
 */
#ifndef VRAMPLAN_VISION_H
#define VRAMPLAN_VISION_H

#include "internal.h"
#include "json.h"

/* Reads vision_config (and the projector's keys at the top level) into m->vis with the
 * parameter counts of the encoder and the projector. text_hidden: the language model's
 * width, which the projector maps to. No vision_config: VP_OK, m->vis untouched. Errors
 * carry the position of the key. */
vp_status vp__vision_read(vp_model *m, const vp__json *doc, const vp__json_node *top,
                          uint64_t text_hidden, vp_error *err);

#endif
