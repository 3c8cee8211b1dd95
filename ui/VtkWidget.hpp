#pragma once
/// \file VtkWidget.hpp
/// Our own Qt 6 <-> VTK bridge: a plain (raster) QWidget that owns a vtkGenericOpenGLRenderWindow and a
/// vtkGenericRenderWindowInteractor. VTK renders into an offscreen OpenGL context only when the view has
/// changed; the frame is read back once and painted as an image. No QOpenGLWidget: one of those in a
/// window makes Qt compose the whole window through OpenGL on every repaint (a progress bar ticking in
/// the run monitor then costs a full-window draw, which with software OpenGL takes the CPU the solver
/// needs). Debian's VTK Qt module is built for Qt 5, so we never use it.
#include <QImage>
#include <QSurfaceFormat>
#include <QWidget>

#include <memory>

#include <vtkNew.h>
#include <vtkSmartPointer.h>

class QOffscreenSurface;
class QOpenGLContext;
class QOpenGLFramebufferObject;
class vtkGenericOpenGLRenderWindow;
class vtkGenericRenderWindowInteractor;
class vtkRenderer;
class vtkObject;

namespace yee::ui {

/// Renders a VTK scene inside a Qt 6 widget and forwards mouse, wheel and key events to VTK's
/// interactor (so the usual trackball camera works). Subclasses add actors to renderer().
class VtkWidget : public QWidget {
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
    /// The view as it is now, in device pixels: renders first when something changed since the last
    /// frame. A null image when no OpenGL context could be created (counted in vtkIssueCount()).
    QImage grabFramebuffer();
    /// Number of frames VTK has rendered since construction (paints that only show the last frame again
    /// do not count).
    int renderCount() const { return renders_; }
    /// Number of VTK error and warning events seen since construction (rendering tests assert 0).
    int vtkIssueCount() const { return vtkIssues_; }

protected:
    /// The widget's size changed to `w` × `h` (logical pixels): VTK's window and interactor follow.
    /// Subclasses that refit their camera override it and call this first.
    virtual void resizeGL(int w, int h);
    void paintEvent(QPaintEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;

    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;
    void keyReleaseEvent(QKeyEvent* e) override;
    void enterEvent(QEnterEvent* e) override;
    void leaveEvent(QEvent* e) override;

    /// VTK has drawn a frame (not yet shown): a subclass that places props after where others landed
    /// in it (a legend clear of the axes' text) does so and returns true, and the frame is drawn again.
    virtual bool frameRendered() { return false; }

    /// Event position in VTK display coordinates (device pixels, origin bottom-left).
    QPoint toVtkDisplay(const QPointF& widgetPos) const;

private:
    void forwardMouse(QMouseEvent* e, unsigned long vtkEvent);
    void setModifiers(Qt::KeyboardModifiers m, const QPoint& p);
    /// Creates the offscreen context on first use and makes it current; false when that fails.
    bool makeContextCurrent();
    /// Renders with VTK and reads the frame back into frame_.
    void renderFrame();
    void finalizeContext();
    void installObservers();

    std::unique_ptr<QOffscreenSurface> surface_;
    std::unique_ptr<QOpenGLContext> context_;
    std::unique_ptr<QOpenGLFramebufferObject> target_;
    QImage frame_;
    bool contextFailed_ = false;
    int renders_ = 0;

    vtkSmartPointer<vtkGenericOpenGLRenderWindow> window_;
    vtkSmartPointer<vtkGenericRenderWindowInteractor> interactor_;
    vtkSmartPointer<vtkRenderer> renderer_;
    bool dirty_ = true;
    bool inPaint_ = false;
    int vtkIssues_ = 0;
};

} // namespace yee::ui
