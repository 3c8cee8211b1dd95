#pragma once
/// \file MemoryBars.hpp
/// Per-device memory bars by ledger category: current and peak bytes, against the device's capacity.
#include <QVector>
#include <QWidget>

#include "yee/core/Box.hpp"
#include "yee/device/MemoryLedger.hpp"

namespace yee::ui {

/// One device's memory as shown in the bars.
struct DeviceMemory {
    QString name;
    QString detail; ///< e.g. the tile box
    std::int64_t capacity = 0;
    device::LedgerSnapshot memory;
};

/// Draws, per device, a stacked bar of current bytes by category and a stacked bar of per-category
/// peaks, scaled to the largest peak of all devices, plus a gauge of peak against capacity.
class MemoryBars : public QWidget {
    Q_OBJECT
public:
    /// PeakOnly for estimates (nothing is allocated), CurrentAndPeak for live runs.
    enum class Mode { PeakOnly, CurrentAndPeak };

    explicit MemoryBars(Mode mode, QWidget* parent = nullptr);

    void setDevices(const QVector<DeviceMemory>& devices);
    const QVector<DeviceMemory>& devices() const { return devices_; }
    void clear() { setDevices({}); }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* e) override;
    bool event(QEvent* e) override;

private:
    int rowHeight() const;
    int legendHeight() const;
    QString toolTipAt(const QPoint& p) const;

    Mode mode_;
    QVector<DeviceMemory> devices_;
};

} // namespace yee::ui
