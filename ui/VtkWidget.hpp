#pragma once
/// \file VtkWidget.hpp
/// Our own Qt 6 <-> VTK bridge: a QOpenGLWidget that owns a vtkGenericOpenGLRenderWindow and a
/// vtkGenericRenderWindowInteractor. Debian's VTK Qt module is built for Qt 5, so we never use it.
#include <QOpenGLWidget>
#include <QSurfaceFormat>

#include <vtkNew.h>
#include <vtkSmartPointer.h>

class vtkGenericOpenGLRenderWindow;
class vtkGenericRenderWindowInteractor;
class vtkRenderer;
class vtkObject;

namespace yee::ui {

/// Renders a VTK scene inside a Qt 6 widget and forwards mouse, wheel and key events to VTK's
/// interactor (so the usual trackball camera works). Subclasses add actors to renderer().
class VtkWidget : public QOpenGLWidget {
    Q_OBJECT
public:
    explicit VtkWidget(QWidget* parent = nullptr);
    ~VtkWidget() override;

    /// The surface format VTK needs: OpenGL 3.2 core, RGBA8, depth 24, no stencil, no multisampling,
    /// double buffered.
    static QSurfaceFormat defaultFormat();
    /// Install defaultFormat() as QSurfaceFormat::setDefaultFormat(). Call before QApplication exists
    /// (and in a Qt Test's initMain()).
    static void installDefaultFormat();

    /// The render window VTK draws into (owned by this widget).
    vtkGenericOpenGLRenderWindow* renderWindow() const;
    /// The interactor receiving forwarded Qt events (owned by this widget).
    vtkGenericRenderWindowInteractor* interactor() const;
    /// The one renderer this widget creates; subclasses add their props to it.
    vtkRenderer* renderer() const;

    /// Ask VTK to re-render at the next paint (schedules a paint).
    void requestRender();
    /// Number of VTK error and warning events seen since construction (rendering tests assert 0).
    int vtkIssueCount() const { return vtkIssues_; }

protected:
    void initializeGL() override;
    void paintGL() override;
    void resizeGL(int w, int h) override;

    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;
    void keyReleaseEvent(QKeyEvent* e) override;
    void enterEvent(QEnterEvent* e) override;
    void leaveEvent(QEvent* e) override;

    /// Event position in VTK display coordinates (device pixels, origin bottom-left).
    QPoint toVtkDisplay(const QPointF& widgetPos) const;

private:
    void forwardMouse(QMouseEvent* e, unsigned long vtkEvent);
    void setModifiers(Qt::KeyboardModifiers m, const QPoint& p);
    void finalizeContext();
    void installObservers();

    vtkSmartPointer<vtkGenericOpenGLRenderWindow> window_;
    vtkSmartPointer<vtkGenericRenderWindowInteractor> interactor_;
    vtkSmartPointer<vtkRenderer> renderer_;
    bool dirty_ = true;
    bool inPaint_ = false;
    int vtkIssues_ = 0;
};

} // namespace yee::ui
