#pragma once
/// \file MaterialEditor.hpp
/// The material dock: one material of the scene given as a constant eps (with mu and sigma), as n and k
/// at a wavelength, as a library material by name (scene/MaterialLibrary.hpp: description, reference,
/// valid range), or as eps_inf plus Drude / Lorentz / Debye poles (eV, fs); and a plot of its relative
/// permittivity eps(lambda), real and imaginary parts, over the sources' band (the library material's
/// valid range marked). Tabulated n, k(lambda) data from a CSV file (the format yee-fit reads) can be
/// loaded for a material: its points are drawn over the plot (eps = (n + i k)^2), and "Fit poles" fits
/// eps_inf plus Lorentz poles to them (scene::fitPoles, as yee-fit does). The data stays with the editor,
/// not in the scene. Every change is one undo step (SetMaterialCommand), refused with the validator's
/// message when it would break a valid scene.
#include <QWidget>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "yee/scene/PoleFit.hpp"
#include "yee/scene/Scene.hpp"

class QChart;
class QComboBox;
class QLabel;
class QLineEdit;
class QLineSeries;
class QScatterSeries;
class QSpinBox;
class QStackedWidget;
class QTableWidget;
class QValueAxis;

namespace yee::ui {

class SceneDocument;

/// The editor. Follows the document's current item when it is a material.
class MaterialEditor : public QWidget {
    Q_OBJECT
public:
    /// How a material is given.
    enum class Form { Constant, Nk, Library, Poles };

    explicit MaterialEditor(SceneDocument* doc, QWidget* parent = nullptr);

    /// The material edited (index into the scene's materials; -1: none).
    int materialIndex() const;
    void setMaterialIndex(int index);
    /// The form of the material edited.
    Form form() const;
    /// The form a material is given in.
    static Form formOf(const scene::Material& m);

    /// Give the material as constant eps, mu and sigma (S/m). Return the refusal, or "" when applied.
    QString setConstant(double eps, double mu, double sigmaSPerM);
    /// Give it as n + i k at vacuum wavelength `lambdaUm`.
    QString setNk(double n, double k, double lambdaUm);
    /// Give it as the library material `name`.
    QString setLibrary(const QString& name);
    /// Give it as eps_inf plus `poles` (units of scene::Pole).
    QString setPoles(double epsInf, const std::vector<scene::Pole>& poles);

    /// The plotted wavelength band, um (the sources' band; 0.4-2 um without sources).
    std::pair<double, double> band() const { return band_; }
    QLineSeries* realSeries() const { return re_; }
    QLineSeries* imagSeries() const { return im_; }
    /// The valid-range markers (vertical lines; empty when the material has no range or it is outside).
    QLineSeries* validLoSeries() const { return validLo_; }
    QLineSeries* validHiSeries() const { return validHi_; }
    /// Load tabulated "wavelength_um, n[, k]" data from CSV file `path` for the material edited (replacing
    /// any it had) and draw it over the plot. Returns the refusal (scene::parseNkCsv's message naming the
    /// file and line), or "" when loaded.
    QString loadFitData(const QString& path);
    /// The data loaded for the material edited (empty when none).
    std::vector<scene::NkSample> fitData() const;
    /// Fit eps_inf plus `lorentz` Lorentz poles to the loaded data over the sources' band (all the data
    /// when fewer than 2 * parameters samples lie inside it) and give the material those poles (one undo
    /// step). Returns the refusal, or "" when applied; `maxError` gets the fit's max relative error.
    QString fitLoadedData(int lorentz, double* maxError = nullptr);
    /// The data points drawn: Re eps and Im eps of the loaded samples inside the plotted band.
    QScatterSeries* dataRealSeries() const { return dataRe_; }
    QScatterSeries* dataImagSeries() const { return dataIm_; }
    /// The line under the plot: the library material's description, reference and valid range, or a
    /// warning when the band leaves it.
    QString infoText() const;

signals:
    void problem(const QString& message);

private:
    QString apply(scene::Material m, const QString& what);
    void sync();
    void replot();
    void applyPage();
    void addPoleRow(const scene::Pole& p);

    SceneDocument* doc_;
    QComboBox* material_;
    QComboBox* form_;
    QStackedWidget* pages_;
    QLineEdit *eps_, *mu_, *sigma_, *n_, *k_, *nkLambda_, *epsInf_;
    QComboBox* library_;
    QTableWidget* poles_;
    QLabel* info_;
    QLabel* message_;
    QChart* chart_;
    QValueAxis *axisX_, *axisY_;
    QLineSeries *re_, *im_, *validLo_, *validHi_;
    QScatterSeries *dataRe_, *dataIm_;
    QSpinBox* fitPoles_;
    /// Loaded n, k data per material name.
    std::map<std::string, std::vector<scene::NkSample>> data_;
    std::pair<double, double> band_{0.4, 2.0};
    bool syncing_ = false;
};

} // namespace yee::ui
