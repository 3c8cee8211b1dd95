#pragma once
/// \file ModePanel.hpp
/// The mode dock: for the selected mode source or mode monitor (a port), its solved waveguide mode
/// (ModePreview.hpp) as |E| on the cross-section with axes in um, its n_eff, attenuation and group index,
/// and the n_eff of every mode solved. Solves run on a worker thread; a newer request supersedes an older
/// one (its result is dropped), and the GUI never waits for a solve. A hidden panel solves when shown.
#include <QWidget>

#include <atomic>
#include <memory>
#include <optional>

#include "ui/ModePreview.hpp"

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QThread;

namespace yee::ui {

class FieldView;
class SceneDocument;

/// The panel. Follows the document's current item.
class ModePanel : public QWidget {
    Q_OBJECT
public:
    explicit ModePanel(SceneDocument* doc, QWidget* parent = nullptr);
    /// Waits for a solve in progress (its result is dropped).
    ~ModePanel() override;

    /// Solve the current item's mode now (mode and wavelength as chosen in the panel). False when the
    /// current item has no modes.
    bool solve();
    /// True while a solve runs.
    bool busy() const { return busy_; }
    /// The latest preview shown, if any.
    const std::optional<ModePreview>& preview() const { return preview_; }
    /// The text under the plot: n_eff, group index, attenuation, solve time; or why nothing is shown.
    QString infoText() const;
    FieldView* fieldView() const { return view_; }
    QSpinBox* modeBox() const { return mode_; }
    QComboBox* wavelengthBox() const { return wavelength_; }
    QCheckBox* groupIndexBox() const { return groupIndex_; }

protected:
    /// A panel hidden while its port changed solves when it is shown.
    void showEvent(QShowEvent* event) override;

signals:
    /// A solve finished and its preview is shown.
    void previewShown();
    /// A solve was refused (the message names the scene field).
    void solveFailed(const QString& message);

private:
    void follow();
    void showResult(std::uint64_t generation, const std::optional<ModePreview>& preview,
                    const QString& error);

    SceneDocument* doc_;
    QLabel* title_;
    QSpinBox* mode_;
    QComboBox* wavelength_;
    QCheckBox* groupIndex_;
    QPushButton* solve_;
    FieldView* view_;
    QLabel* info_;
    std::optional<ModePreview> preview_;
    ItemRef item_;
    QThread* worker_ = nullptr;
    std::uint64_t generation_ = 0;
    bool busy_ = false;
    bool pending_ = false;
    bool stale_ = false; ///< the port changed while the panel was hidden
};

} // namespace yee::ui
