#pragma once
/// \file DevicesPanel.hpp
/// The devices dock: local devices, the tile grid, the capacity per device, and the estimated peak
/// memory of every device against its capacity; impossible choices are explained before running.
#include <QWidget>

#include "ui/Estimator.hpp"

class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace yee::ui {

class MemoryBars;
class SceneDocument;

/// Edits the scene's "run" section (tiles, emulated devices) through undo commands, and the UI-only
/// RunSettings (capacity per device).
class DevicesPanel : public QWidget {
    Q_OBJECT
public:
    explicit DevicesPanel(SceneDocument* doc, QWidget* parent = nullptr);

    /// Settings that are not part of the scene.
    RunSettings settings() const { return settings_; }
    /// The text explaining why the current choice cannot run (empty when it can).
    QString problem() const;
    MemoryBars* bars() const { return bars_; }

public slots:
    /// Show an estimate (or its problem).
    void showEstimate(const yee::ui::EstimateOutcome& outcome);

signals:
    /// The UI-only settings changed (the scene's changes come through the document).
    void settingsChanged(const yee::ui::RunSettings& settings);

private:
    void syncFromScene();
    void pushTiles();
    void pushDevices();

    SceneDocument* doc_;
    RunSettings settings_;
    QString problemText_;
    QLabel* host_;
    QSpinBox* devices_;
    QLabel* devicesNote_;
    QSpinBox* tiles_[3];
    QDoubleSpinBox* capacity_;
    QLabel* summary_;
    QLabel* problem_;
    MemoryBars* bars_;
    int tilesKey_ = 0;
    int devicesKey_ = 0;
};

} // namespace yee::ui
