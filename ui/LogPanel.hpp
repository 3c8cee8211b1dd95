#pragma once
/// \file LogPanel.hpp
/// The log dock: time-stamped messages from the studio (files, runs, rejected edits).
#include <QPlainTextEdit>

namespace yee::ui {

/// Read-only, append-only message log.
class LogPanel : public QPlainTextEdit {
    Q_OBJECT
public:
    enum class Level { Info, Warning, Error };

    explicit LogPanel(QWidget* parent = nullptr);

public slots:
    /// Append one message with a time stamp.
    void append(const QString& message, yee::ui::LogPanel::Level level = Level::Info);
    void info(const QString& message) { append(message, Level::Info); }
    void warning(const QString& message) { append(message, Level::Warning); }
    void error(const QString& message) { append(message, Level::Error); }
};

} // namespace yee::ui
