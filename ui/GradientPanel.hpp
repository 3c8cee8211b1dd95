#pragma once
/// \file GradientPanel.hpp
/// The gradient dock: method (full / checkpointed / reversible), checkpoint counts, the reversible
/// method's recorder module chain (ordered, editable) and storage tier, and the per-device memory
/// estimate, refreshed whenever any choice changes.
#include <QWidget>

#include "ui/Estimator.hpp"

class QComboBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;
class QStackedWidget;

namespace yee::ui {

class MemoryBars;
class SceneDocument;

/// Edits the scene's "gradient" section through undo commands.
class GradientPanel : public QWidget {
    Q_OBJECT
public:
    explicit GradientPanel(SceneDocument* doc, QWidget* parent = nullptr);

    QComboBox* methodBox() const { return method_; }
    QListWidget* recorderList() const { return chain_; }
    MemoryBars* bars() const { return bars_; }
    /// The estimate line (peak per device, or why value-and-grad cannot run).
    QString estimateText() const;
    /// The time-cost line: value-and-grad against a forward run, by phase.
    QString timeText() const;
    /// Switch gradient.method; a recorder chain (reversible only) is kept aside, not in the way, and
    /// comes back when the method is reversible again. One undo step.
    void setMethod(const QString& method);
    /// The recorder chain kept aside while the method is not reversible.
    const std::vector<scene::RecorderModule>& keptChain() const { return keptChain_; }
    /// Time of a value-and-grad run relative to a forward run, from the steps of each phase (one
    /// adjoint or recomputed step counted as one forward step; a reversible reverse step reconstructs
    /// and adjoins, two). Fills `detail` with the phases' steps.
    static double costFactor(scene::GradientMethod method, std::int64_t steps, std::int64_t recompute,
                             QString* detail = nullptr);

    /// Append a recorder module ("LinearReconstructEveryK" or "DtypeConversion") after the selected one.
    void addModule(const QString& module);
    /// Remove the selected recorder module.
    void removeSelectedModule();
    /// Move the selected recorder module up (-1) or down (+1).
    void moveSelectedModule(int delta);

public slots:
    void showEstimate(const yee::ui::EstimateOutcome& outcome);

private:
    void syncFromScene();
    void syncModuleEditor();
    void setProperty(const QString& key, const QVariant& value, int* mergeKey = nullptr);
    void pushChain(std::vector<scene::RecorderModule> chain, int select, int mergeKey = 0);

    SceneDocument* doc_;
    QComboBox* method_;
    QSpinBox* checkpoints_;
    QSpinBox* driftCheckpoints_;
    QGroupBox* recorderBox_;
    QListWidget* chain_;
    QPushButton* add_;
    QPushButton* remove_;
    QPushButton* up_;
    QPushButton* down_;
    QStackedWidget* moduleEditor_;
    QSpinBox* k_;
    QSpinBox* startAfter_;
    QComboBox* dtype_;
    QComboBox* tier_;
    QSpinBox* transferInterval_;
    QSpinBox* ringBuffers_;
    QLineEdit* diskPath_;
    QLabel* summary_;
    QLabel* time_;
    QLabel* note_;
    std::vector<scene::RecorderModule> keptChain_;
    MemoryBars* bars_;
    int checkpointsKey_ = 0, driftKey_ = 0, moduleKey_ = 0, transferKey_ = 0, ringKey_ = 0;
};

} // namespace yee::ui
