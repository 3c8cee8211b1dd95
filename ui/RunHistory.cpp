#include "ui/RunHistory.hpp"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QRegularExpression>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

#include "yee/core/Error.hpp"
#include "yee/files/Hdf5Util.hpp"
#include "yee/io/ResultsWriter.hpp"

namespace yee::ui {

namespace h5 = files::h5;

namespace {
enum Column { Run, Kind, Status, Wall, Written, File, ColumnCount };
constexpr int kPathRole = Qt::UserRole + 1;

const QRegularExpression& runName() {
    static const QRegularExpression re(QStringLiteral("^run-(\\d+)\\.results\\.h5$"));
    return re;
}
} // namespace

RunHistory::RunHistory(QWidget* parent) : QWidget(parent), list_(new QTreeWidget(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    list_->setObjectName(QStringLiteral("runHistoryList"));
    list_->setColumnCount(ColumnCount);
    list_->setHeaderLabels({tr("Run"), tr("Kind"), tr("Status"), tr("Wall time"), tr("Written"), tr("File")});
    list_->setRootIsDecorated(false);
    list_->setAlternatingRowColors(true);
    list_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    list_->header()->setStretchLastSection(true);
    layout->addWidget(list_);
    connect(list_, &QTreeWidget::itemActivated, this,
            [this](QTreeWidgetItem* item) { emit openRequested(item->data(0, kPathRole).toString()); });
}

QString RunHistory::runFile(const QString& folder, int n) {
    return QDir(folder).filePath(QStringLiteral("run-%1.results.h5").arg(n, 3, 10, QLatin1Char('0')));
}

int RunHistory::nextRunNumber(const QString& folder) {
    int next = 1;
    const QDir dir(folder);
    for (const QString& name : dir.entryList({QStringLiteral("run-*")}, QDir::Files | QDir::Dirs)) {
        // Any entry of that name (a results file, its snapshot folder) takes the number.
        static const QRegularExpression any(QStringLiteral("^run-(\\d+)"));
        const auto m = any.match(name);
        if (m.hasMatch())
            next = std::max(next, m.captured(1).toInt() + 1);
    }
    return next;
}

void RunHistory::setFolder(const QString& folder) {
    folder_ = folder;
    refresh();
}

void RunHistory::clear() {
    folder_.clear();
    list_->clear();
}

void RunHistory::refresh() {
    list_->clear();
    if (folder_.isEmpty())
        return;
    const QDir dir(folder_);
    QList<QPair<int, QString>> runs;
    for (const QString& name : dir.entryList({QStringLiteral("run-*.results.h5")}, QDir::Files)) {
        const auto m = runName().match(name);
        if (m.hasMatch())
            runs.push_back({m.captured(1).toInt(), dir.filePath(name)});
    }
    std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& [n, path] : runs)
        fill(new QTreeWidgetItem(list_), n, path);
}

void RunHistory::addRun(const QString& path) {
    const QFileInfo fi(path);
    const auto m = runName().match(fi.fileName());
    if (folder_.isEmpty() || !m.hasMatch() || fi.absoluteDir() != QDir(folder_)) {
        refresh();
        return;
    }
    const int n = m.captured(1).toInt();
    const QString listed = QDir(folder_).filePath(fi.fileName());
    // Newest first: before the first entry of a lower number.
    int row = 0;
    for (; row < list_->topLevelItemCount(); ++row) {
        QTreeWidgetItem* item = list_->topLevelItem(row);
        const int other = item->text(Run).toInt();
        if (other == n) {
            fill(item, n, listed);
            return;
        }
        if (other < n)
            break;
    }
    auto* item = new QTreeWidgetItem;
    list_->insertTopLevelItem(row, item);
    fill(item, n, listed);
}

void RunHistory::fill(QTreeWidgetItem* item, int n, const QString& path) const {
    item->setData(0, kPathRole, path);
    item->setText(Run, QString::number(n));
    item->setText(File, path);
    item->setToolTip(File, path);
    item->setText(Written, QFileInfo(path).lastModified().toString(QStringLiteral("yyyy-MM-dd hh:mm:ss")));
    try {
        // The root attributes and the phase table only: listing never reads detector data.
        h5::Session session;
        const h5::Handle file = h5::openFileReadOnly(path.toStdString());
        if (!h5::hasAttr(file, "format") || h5::readStringAttr(file, "format") != io::kResultsFormat)
            throw InputError("not a yee results file");
        bool grad = h5::exists(file, "gradient");
        double wall = 0;
        if (h5::exists(file, "telemetry")) {
            const h5::Handle t = h5::openGroup(file, "telemetry");
            wall = h5::readDoubleAttr(t, "wall_seconds");
            if (h5::exists(t, "phases"))
                for (const auto& name : h5::readStringArrayAttr(h5::openGroup(t, "phases"), "names"))
                    grad = grad || name == "adjoint";
        }
        item->setText(Kind, grad ? tr("value and gradient") : tr("forward"));
        item->setText(Status, QString::fromStdString(h5::readStringAttr(file, "status")));
        item->setText(Wall, QStringLiteral("%1 s").arg(wall, 0, 'f', 2));
    } catch (const std::exception& e) {
        item->setText(Status, tr("unreadable: %1").arg(QString::fromStdString(e.what())));
    }
    item->setToolTip(Status, item->text(Status));
}

int RunHistory::count() const {
    return list_->topLevelItemCount();
}

QString RunHistory::pathAt(int row) const {
    const auto* item = list_->topLevelItem(row);
    return item ? item->data(0, kPathRole).toString() : QString();
}

QString RunHistory::statusAt(int row) const {
    const auto* item = list_->topLevelItem(row);
    return item ? item->text(Status) : QString();
}

} // namespace yee::ui
