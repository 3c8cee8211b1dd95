#pragma once
/// \file ExportDialog.hpp
/// File > Export cluster bundle: the job layout (tile grid, nodes, tasks per node, devices and GPUs per
/// task, time limit, value-and-grad, restart files), the generated `run.sbatch` shown before anything is
/// written (with its site-specific partition/account placeholder), and the bundle written by the same
/// bundle::exportBundle() as `yee-run --export`, so both give the same files.
#include <QDialog>

#include "yee/bundle/Bundle.hpp"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;

namespace yee::ui {

/// Modal dialog over a copy of the scene.
class ExportDialog : public QDialog {
    Q_OBJECT
public:
    explicit ExportDialog(const scene::Scene& scene, QWidget* parent = nullptr);

    /// The options as the fields set them.
    bundle::BundleOptions options() const;
    /// Set every field from `o`.
    void setOptions(const bundle::BundleOptions& o);
    /// The run.sbatch text for the current fields (empty while they cannot be exported).
    QString script() const;
    /// Why the current fields cannot be exported (one line naming the field), or empty.
    QString problem() const;
    /// The resources the job requests (valid when problem() is empty).
    const bundle::BatchResources& resources() const { return resources_; }
    /// Write the bundle into `dir` (see bundle::exportBundle). Returns false with `error` set on failure.
    bool exportTo(const QString& dir, QString* error = nullptr);
    /// The folder the bundle's file dialog starts in (the scene file's folder; empty: the working folder).
    void setStartFolder(const QString& folder) { startFolder_ = folder; }
    /// Where the file dialog proposes to write the bundle: "<start folder>/<scene name>-bundle".
    QString suggestedPath() const;

private:
    void refresh();
    void chooseAndExport();

    scene::Scene scene_;
    QString startFolder_;
    bundle::BatchResources resources_;
    QString problem_;
    QSpinBox* tiles_[3];
    QSpinBox* nodes_;
    QSpinBox* tasksPerNode_;
    QComboBox* devices_;
    QLabel* gpusPerTask_;
    QLineEdit* time_;
    QCheckBox* gradient_;
    QSpinBox* checkpointEvery_;
    QLabel* summary_;
    QPlainTextEdit* preview_;
};

} // namespace yee::ui
