#include "ui/PropertyEditor.hpp"

#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QVBoxLayout>

#include "ui/PropertyModel.hpp"
#include "ui/SceneDocument.hpp"

namespace yee::ui {

namespace {
bool usesCombo(PropertyType t) {
    return t == PropertyType::Enum || t == PropertyType::MaterialRef || t == PropertyType::DetectorRef ||
           t == PropertyType::Bool;
}
} // namespace

QWidget* PropertyDelegate::createEditor(QWidget* parent, const QStyleOptionViewItem&,
                                        const QModelIndex& index) const {
    const auto type = PropertyType(index.data(PropertyModel::TypeRole).toInt());
    if (usesCombo(type)) {
        auto* combo = new QComboBox(parent);
        if (type == PropertyType::Bool) {
            combo->addItem(tr("yes"), true);
            combo->addItem(tr("no"), false);
        } else {
            for (const QString& c : index.data(PropertyModel::ChoicesRole).toStringList())
                combo->addItem(c, c);
        }
        // Commit as soon as a choice is made, like a property sheet.
        connect(combo, &QComboBox::activated, this, [this, combo] {
            emit const_cast<PropertyDelegate*>(this)->commitData(combo);
            emit const_cast<PropertyDelegate*>(this)->closeEditor(combo);
        });
        return combo;
    }
    auto* edit = new QLineEdit(parent);
    edit->setFrame(false);
    return edit;
}

void PropertyDelegate::setEditorData(QWidget* editor, const QModelIndex& index) const {
    const QVariant v = index.data(Qt::EditRole);
    if (auto* combo = qobject_cast<QComboBox*>(editor)) {
        combo->setCurrentIndex(std::max(0, combo->findData(v)));
    } else if (auto* edit = qobject_cast<QLineEdit*>(editor)) {
        edit->setText(v.toString());
        edit->selectAll();
    }
}

void PropertyDelegate::setModelData(QWidget* editor, QAbstractItemModel* model,
                                    const QModelIndex& index) const {
    if (auto* combo = qobject_cast<QComboBox*>(editor))
        model->setData(index, combo->currentData());
    else if (auto* edit = qobject_cast<QLineEdit*>(editor))
        model->setData(index, edit->text());
}

PropertyEditor::PropertyEditor(SceneDocument* doc, QWidget* parent)
    : QWidget(parent), doc_(doc), model_(new PropertyModel(doc, this)), view_(new QTableView(this)),
      title_(new QLabel(this)), message_(new QLabel(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    QFont bold = title_->font();
    bold.setBold(true);
    title_->setFont(bold);
    title_->setWordWrap(true); // a long title must not widen the dock
    layout->addWidget(title_);

    view_->setModel(model_);
    view_->setItemDelegateForColumn(1, new PropertyDelegate(view_));
    view_->verticalHeader()->hide();
    view_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    view_->horizontalHeader()->setStretchLastSection(true);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setSelectionMode(QAbstractItemView::SingleSelection);
    view_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::SelectedClicked |
                           QAbstractItemView::EditKeyPressed | QAbstractItemView::AnyKeyPressed);
    view_->setAlternatingRowColors(true);
    view_->setWordWrap(false);
    layout->addWidget(view_, 1);

    message_->setWordWrap(true);
    message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    message_->setStyleSheet(QStringLiteral("QLabel { color: #b00020; }"));
    message_->hide();
    layout->addWidget(message_);

    connect(model_, &PropertyModel::valueRejected, this, [this](const QString& m) {
        message_->setText(tr("Not applied: %1").arg(m));
        message_->show();
    });
    connect(model_, &PropertyModel::valueAccepted, message_, [this] {
        message_->clear();
        message_->hide();
    });
    connect(model_, &QAbstractItemModel::modelReset, this, [this] {
        view_->clearSpans();
        for (int r = 0; r < model_->rowCount(); ++r)
            if (model_->isGroupRow(r))
                view_->setSpan(r, 0, 1, 2);
        updateTitle();
        message_->clear();
        message_->hide();
    });
    connect(doc_, &SceneDocument::itemChanged, this, &PropertyEditor::updateTitle);
    updateTitle();
}

QString PropertyEditor::message() const {
    return message_->text();
}

void PropertyEditor::updateTitle() {
    const ItemRef ref = model_->item();
    if (!ref.valid()) {
        title_->setText(tr("Select an item in the scene tree or the 3-D view."));
        return;
    }
    if (ref.index >= 0 && ref.index >= elementCount(doc_->scene(), ref.kind))
        return;
    title_->setText(
        QStringLiteral("%1  \u2014  %2").arg(itemTitle(doc_->scene(), ref), itemPath(doc_->scene(), ref)));
}

} // namespace yee::ui
