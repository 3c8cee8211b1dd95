#include "ui/LogPanel.hpp"

#include <QDateTime>
#include <QScrollBar>

namespace yee::ui {

LogPanel::LogPanel(QWidget* parent) : QPlainTextEdit(parent) {
    setObjectName(QStringLiteral("logPanel"));
    setReadOnly(true);
    setMaximumBlockCount(5000);
    setLineWrapMode(QPlainTextEdit::WidgetWidth);
    QFont f = font();
    f.setFamily(QStringLiteral("monospace"));
    f.setStyleHint(QFont::Monospace);
    setFont(f);
}

void LogPanel::append(const QString& message, Level level) {
    const QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss"));
    QString colour = QStringLiteral("#202020"), tag;
    if (level == Level::Warning) {
        colour = QStringLiteral("#a05a00");
        tag = tr("warning: ");
    } else if (level == Level::Error) {
        colour = QStringLiteral("#b00020");
        tag = tr("error: ");
    }
    appendHtml(QStringLiteral("<span style='color:#808080'>%1</span> <span style='color:%2'>%3%4</span>")
                   .arg(stamp, colour, tag.toHtmlEscaped(), message.toHtmlEscaped()));
    verticalScrollBar()->setValue(verticalScrollBar()->maximum());
}

} // namespace yee::ui
