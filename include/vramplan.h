/**
 * @file vramplan.h
 * @brief Umbrella header: the whole public API of libvramplan.
 *
 * Include this one header; it includes every concern header under vramplan/.
 */
#ifndef VRAMPLAN_H
#define VRAMPLAN_H

#include <vramplan/common.h>
#include <vramplan/version.h>
#include <vramplan/status.h>
#include <vramplan/units.h>
#include <vramplan/model.h>
#include <vramplan/sheet.h>
#include <vramplan/workload.h>
#include <vramplan/weights.h>
#include <vramplan/kv.h>
#include <vramplan/activations.h>
#include <vramplan/optimizer.h>
#include <vramplan/estimate.h>
#include <vramplan/plan.h>
#include <vramplan/report.h>
#include <vramplan/snapshot.h>
#include <vramplan/evidence.h>
#include <vramplan/cards.h>

#endif /* VRAMPLAN_H */
