#pragma once
/// \file MemoryBars.hpp
/// Per-device memory bars: how full each device is (peak, and current during runs, as a fraction of its
/// capacity), split by ledger category inside the bar, with every number written out in full (lines wrap,
/// never elide), host (pinned) memory when the recorder stages to the host, and idle devices said to be.
#include <QHash>
#include <QStringList>
#include <QVector>
#include <QWidget>

#include <array>

#include "yee/core/Box.hpp"
#include "yee/device/MemoryLedger.hpp"

namespace yee::ui {

/// One device's memory as shown in the bars.
struct DeviceMemory {
    QString name;
    QString detail; ///< e.g. the tile box
    std::int64_t capacity = 0;
    device::LedgerSnapshot memory;
    /// Host (pinned) bytes this device's tile holds besides its device memory (recorder host tier).
    std::int64_t hostBytes = 0;
    /// A device without a tile (more devices than tiles): shown as idle, without bars.
    bool idle = false;
    /// A device of a run that has not reported yet: its name and capacity, empty bars and no numbers.
    /// `memory` holds the estimate's peak, which only the legend reads (the categories the run will
    /// use), so that the block keeps its shape when the first report fills it in.
    bool waiting = false;
};

/// Draws, per device, its text lines (name and fill, tile, bytes, host bytes) and a stacked bar of peak
/// bytes by category (plus one of current bytes in CurrentAndPeak mode), scaled to the device's capacity:
/// a bar half full is a device half full. Over capacity, the bar is full and outlined in red.
class MemoryBars : public QWidget {
    Q_OBJECT
public:
    /// PeakOnly for estimates (nothing is allocated), CurrentAndPeak for live runs.
    enum class Mode { PeakOnly, CurrentAndPeak };

    explicit MemoryBars(Mode mode, QWidget* parent = nullptr);

    /// Shows `devices`. The layout is asked to make room only when the height the widget needs changes
    /// (a live update of the numbers repaints the bars, nothing around them).
    void setDevices(const QVector<DeviceMemory>& devices);
    const QVector<DeviceMemory>& devices() const { return devices_; }
    void clear() { setDevices({}); }

    /// The text lines shown for device `i`, in full.
    QStringList lines(int i) const;
    /// Peak bytes of device `i` as a fraction of its capacity (0 without a capacity).
    double fillFraction(int i) const;
    /// Left edge and width of the bars at widget width `w` (pixels).
    QPair<int, int> barSpan(int w) const;
    /// Top of device `i`'s peak bar at widget width `w` (pixels).
    int peakBarTop(int i, int w) const;

    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int w) const override;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* e) override;
    bool event(QEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    void changeEvent(QEvent* e) override;

private:
    /// Height of `text` wrapped into `width` (word wrap; anywhere when a word alone is wider).
    int textHeight(const QString& text, int width, bool bold) const;
    /// Height of device `i`'s block at widget width `w`.
    int blockHeight(int i, int w) const;
    int legendHeight(int w) const;
    /// heightForWidth without the cache.
    int computeHeight(int w) const;
    /// The heights the layout holds: sizeHint's, minimumSizeHint's and heightForWidth(width()).
    std::array<int, 3> layoutHeights() const;
    QString toolTipAt(const QPoint& p) const;

    Mode mode_;
    QVector<DeviceMemory> devices_;
    mutable QHash<int, int> heights_; ///< heightForWidth by width, for devices_ and the font
};

} // namespace yee::ui
