#pragma once
/// \file Format.hpp
/// Small text formatting helpers shared by the panels.
#include <QString>

#include "yee/core/Box.hpp"
#include "yee/device/MemoryLedger.hpp"

namespace yee::ui {

/// "12.3 MiB" (device::formatBytes as a QString).
inline QString bytesText(std::int64_t bytes) {
    return QString::fromStdString(device::formatBytes(bytes));
}

/// A cell box as "[lo,hi)x[lo,hi)x[lo,hi)".
inline QString boxText(const Box& b) {
    return QStringLiteral("[%1,%2)\u00d7[%3,%4)\u00d7[%5,%6)")
        .arg(b.lo[0])
        .arg(b.hi[0])
        .arg(b.lo[1])
        .arg(b.hi[1])
        .arg(b.lo[2])
        .arg(b.hi[2]);
}

/// A scene schema unit as the user reads it: "um" becomes "µm" (the scene files keep ASCII keys and units),
/// anything else is shown as it is ("fs", "S/m").
inline QString unitText(const QString& schemaUnit) {
    return schemaUnit == QLatin1String("um") ? QStringLiteral("\u00b5m") : schemaUnit;
}

} // namespace yee::ui
