/**
 * @file vramplan/cards.h
 * @brief The built-in card catalog: common data-centre and rental GPUs, their memory as
 *        sold and as the device reports it.
 *
 * @defgroup cards Card catalog
 * @brief A card name is a capacity: "H100 SXM" → the bytes the device reports, with the
 *        source of that figure.
 *
 * Each entry has the nominal memory as sold (decimal GB, as the vendor states it), the
 * total `nvidia-smi` reports (MiB, i.e. NVML bytes) and the total CUDA or HIP reports to a
 * process (`cudaMemGetInfo`, PyTorch's "total capacity") where a public source gives them,
 * and the interconnect class. docs/cards.md cites the source of every figure. The same
 * card can report less with ECC on or another driver; the catalog keeps the smallest figure
 * seen. Catalog figures are documentation: they are never proof for a particular offer,
 * whose own device report decides.
 *
 * Names are matched without regard to case, spaces, hyphens or the vendor words NVIDIA,
 * GeForce, Tesla, AMD and Instinct, so "RTX 4090", "NVIDIA GeForce RTX 4090" and "rtx4090"
 * are one card, and the names `torch.cuda.get_device_name()` returns resolve
 * ("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", "Tesla T4"). "H100" alone is the SXM
 * card (the PCIe card reports the same memory); "A100" and "V100" alone are ambiguous.
 *
 * Thread safety: the catalog is constant; every function is safe from any thread.
 * @{
 */
#ifndef VRAMPLAN_CARDS_H
#define VRAMPLAN_CARDS_H

#include <stddef.h>
#include <stdint.h>

#include <vramplan/common.h>
#include <vramplan/status.h>
#include <vramplan/units.h>

VP_BEGIN_DECLS

/** @brief A catalog entry (constant, owned by the library). @since 0.2 */
typedef struct vp_card vp_card;

/**
 * @brief Number of cards in the catalog.
 * @return the count
 * @since 0.2
 */
VP_API size_t vp_card_count(void);

/**
 * @brief Card @p i of the catalog, in catalog order.
 * @param i index below vp_card_count()
 * @return the card (owned by the library, never freed), or NULL when out of range
 * @since 0.2
 */
VP_API const vp_card *vp_card_at(size_t i);

/**
 * @brief Find a card by name ("H100 SXM", "NVIDIA GeForce RTX 4090", "l40s").
 * @param[out] out the card; untouched on error
 * @param name the name, NUL-terminated
 * @param err optional; on VP_ENOTFOUND its message lists every known name, on
 *        VP_EINVALID the cards the name could mean
 * @retval VP_OK found
 * @retval VP_ENOTFOUND no card has this name
 * @retval VP_EINVALID the name is ambiguous ("A100": 40 GB or 80 GB)
 * @retval VP_EMISUSE @p out or @p name is NULL
 * @since 0.2
 */
VP_API vp_status vp_card_find(const vp_card **out, const char *name, vp_error *err);

/**
 * @brief The card's catalog name ("RTX 4090").
 * @param c the card
 * @return a static string; "" for NULL
 * @since 0.2
 */
VP_API const char *vp_card_name(const vp_card *c);

/**
 * @brief Memory as sold, per GPU: the vendor's decimal figure ("24 GB" = 24,000,000,000 B).
 * @param c the card
 * @return the bytes; 0 for NULL
 * @since 0.2
 */
VP_API vp_bytes vp_card_nominal(const vp_card *c);

/**
 * @brief The total `nvidia-smi` reports (NVML bytes: its MiB × 2^20).
 * @param c the card
 * @param[out] out the bytes; untouched unless VP_OK
 * @retval VP_OK a public source gives it (docs/cards.md)
 * @retval VP_ENOTFOUND no public source in the catalog
 * @retval VP_EMISUSE @p c or @p out is NULL
 * @since 0.2
 */
VP_API vp_status vp_card_reported(const vp_card *c, vp_bytes *out);

/**
 * @brief The total CUDA (or HIP) reports to a process: what frameworks can allocate from,
 *        a few hundred MiB below the `nvidia-smi` total.
 * @param c the card
 * @param[out] out the bytes; untouched unless VP_OK
 * @retval VP_OK a public source gives it (docs/cards.md)
 * @retval VP_ENOTFOUND no public source in the catalog
 * @retval VP_EMISUSE @p c or @p out is NULL
 * @since 0.2
 */
VP_API vp_status vp_card_visible(const vp_card *c, vp_bytes *out);

/**
 * @brief The capacity a card name stands for, and on what basis: the CUDA-visible total
 *        when known, else the `nvidia-smi` total, else the nominal figure.
 * @param c the card
 * @param[out] out the bytes; untouched unless VP_OK
 * @param[out] basis a static description of which figure was taken; may be NULL
 * @retval VP_OK always for a card
 * @retval VP_EMISUSE @p c or @p out is NULL
 * @since 0.2
 */
VP_API vp_status vp_card_capacity(const vp_card *c, vp_bytes *out, const char **basis);

/**
 * @brief The interconnect class ("PCIe 4.0 x16, no NVLink", "NVLink 4, 900 GB/s").
 * @param c the card
 * @return a static string; "" for NULL
 * @since 0.2
 */
VP_API const char *vp_card_interconnect(const vp_card *c);

/**
 * @brief Where the reported figures come from, in one line (docs/cards.md has the links).
 * @param c the card
 * @return a static string; "" for NULL
 * @since 0.2
 */
VP_API const char *vp_card_source(const vp_card *c);

VP_END_DECLS

/** @} */
#endif /* VRAMPLAN_CARDS_H */
