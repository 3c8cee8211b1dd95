#pragma once
/// \file DevicesPanel.hpp
/// The devices dock: local devices (the host, and the CUDA GPUs with their memory or why there are
/// none), the tile grid, the capacity per device, and the estimated peak memory of every device against
/// its capacity; impossible choices are explained before running.
#include <QWidget>

#include "ui/Estimator.hpp"

class QDoubleSpinBox;
class QLabel;
class QSpinBox;
class QTreeWidget;

namespace yee::ui {

class MemoryBars;
class SceneDocument;

/// Edits the scene's "run" section (tiles, emulated devices, the GPUs to run on) through undo commands,
/// and the UI-only RunSettings (capacity per device). Checking GPUs in the list sets run.devices to
/// "cuda:ID,..." ("cuda:all" when every GPU is checked); unchecking the last one goes back to one
/// emulated CPU device per tile.
class DevicesPanel : public QWidget {
    Q_OBJECT
public:
    explicit DevicesPanel(SceneDocument* doc, QWidget* parent = nullptr);

    /// Settings that are not part of the scene.
    RunSettings settings() const { return settings_; }
    /// The text explaining why the current choice cannot run (empty when it can).
    QString problem() const;
    MemoryBars* bars() const { return bars_; }
    /// The estimate's one-line summary (grid, steps, devices, peaks) as shown.
    QString summaryText() const;
    /// The GPU list (one row per visible GPU: id, name, memory, free, compute capability).
    QTreeWidget* gpuList() const { return gpus_; }
    /// Why no GPU can be used (empty when there are GPUs).
    QString gpuUnavailableText() const;
    /// Where the scene's run.devices runs here: the GPUs, the emulated devices, or why a GPU request
    /// falls back to emulated CPU devices.
    QString devicesNote() const;

public slots:
    /// Show an estimate (or its problem).
    void showEstimate(const yee::ui::EstimateOutcome& outcome);
    /// Query the GPUs again (free memory changes as other programs run).
    void refreshGpus();

signals:
    /// The UI-only settings changed (the scene's changes come through the document).
    void settingsChanged(const yee::ui::RunSettings& settings);

private:
    void syncFromScene();
    void pushTiles();
    void pushDevices();
    void pushGpus();

    SceneDocument* doc_;
    RunSettings settings_;
    QString problemText_;
    QLabel* host_;
    QSpinBox* devices_;
    QLabel* devicesNote_;
    QTreeWidget* gpus_;
    QLabel* gpuUnavailable_;
    QSpinBox* tiles_[3];
    QDoubleSpinBox* capacity_;
    QLabel* summary_;
    QLabel* problem_;
    MemoryBars* bars_;
    int tilesKey_ = 0;
    int devicesKey_ = 0;
};

} // namespace yee::ui
