#include "ui/VtkWidget.hpp"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QOpenGLFramebufferObject>
#include <QOpenGLFunctions>
#include <QPainter>
#include <QWheelEvent>

#include <algorithm>
#include <functional>

#include <vtkCallbackCommand.h>
#include <vtkCommand.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkGenericRenderWindowInteractor.h>
#include <vtkInteractorStyleTrackballCamera.h>
#include <vtkOpenGLState.h>
#include <vtkOutputWindow.h>
#include <vtkRenderer.h>

namespace yee::ui {

namespace {

/// Connect a VTK event of `subject` to a C++ callable.
template <class F> void observe(vtkObject* subject, unsigned long event, F&& f) {
    struct Holder {
        std::function<void(vtkObject*, unsigned long, void*)> fn;
    };
    auto* holder = new Holder{std::forward<F>(f)};
    vtkNew<vtkCallbackCommand> cb;
    cb->SetClientData(holder);
    cb->SetCallback([](vtkObject* caller, unsigned long id, void* client, void* callData) {
        static_cast<Holder*>(client)->fn(caller, id, callData);
    });
    cb->SetClientDataDeleteCallback([](void* client) { delete static_cast<Holder*>(client); });
    subject->AddObserver(event, cb);
}

} // namespace

QSurfaceFormat VtkWidget::defaultFormat() {
    QSurfaceFormat fmt;
    fmt.setRenderableType(QSurfaceFormat::OpenGL);
    fmt.setVersion(3, 2);
    fmt.setProfile(QSurfaceFormat::CoreProfile);
    fmt.setSwapBehavior(QSurfaceFormat::DoubleBuffer);
    fmt.setRedBufferSize(8);
    fmt.setGreenBufferSize(8);
    fmt.setBlueBufferSize(8);
    fmt.setAlphaBufferSize(8);
    fmt.setDepthBufferSize(24);
    fmt.setStencilBufferSize(0);
    fmt.setSamples(0);
    fmt.setStereo(false);
    return fmt;
}

void VtkWidget::installDefaultFormat() {
    QSurfaceFormat::setDefaultFormat(defaultFormat());
}

VtkWidget::VtkWidget(QWidget* parent)
    : QWidget(parent), window_(vtkSmartPointer<vtkGenericOpenGLRenderWindow>::New()),
      interactor_(vtkSmartPointer<vtkGenericRenderWindowInteractor>::New()),
      renderer_(vtkSmartPointer<vtkRenderer>::New()) {
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setMinimumSize(160, 120);
    // Every pixel is painted from the frame: no background fill first.
    setAttribute(Qt::WA_OpaquePaintEvent);

    // We own the (offscreen) context: VTK renders only in renderFrame(), into its own framebuffer,
    // which we then blit into ours and read back.
    window_->SetReadyForRendering(false);
    window_->SetFrameBlitModeToNoBlit();
    window_->SetMultiSamples(0);
    window_->AddRenderer(renderer_);

    window_->SetInteractor(interactor_);
    vtkNew<vtkInteractorStyleTrackballCamera> style;
    interactor_->SetInteractorStyle(style);
    // Renders requested by interaction only mark the view dirty; paintGL does the rendering.
    interactor_->EnableRenderOff();
    interactor_->Initialize();

    renderer_->SetBackground(0.97, 0.97, 0.98);
    renderer_->SetBackground2(0.82, 0.85, 0.90);
    renderer_->GradientBackgroundOn();

    installObservers();
}

VtkWidget::~VtkWidget() {
    if (context_ && context_->makeCurrent(surface_.get())) {
        finalizeContext();
        target_.reset();
        context_->doneCurrent();
    }
    // VTK's objects outlive the context members: their callbacks into this widget go first.
    window_->RemoveAllObservers();
    interactor_->RemoveAllObservers();
    renderer_->RemoveAllObservers();
}

void VtkWidget::installObservers() {
    observe(window_, vtkCommand::WindowMakeCurrentEvent, [this](vtkObject*, unsigned long, void*) {
        if (context_ && QOpenGLContext::currentContext() != context_.get())
            context_->makeCurrent(surface_.get());
    });
    observe(window_, vtkCommand::WindowIsCurrentEvent, [this](vtkObject*, unsigned long, void* data) {
        auto* isCurrent = static_cast<bool*>(data);
        *isCurrent = context_ && QOpenGLContext::currentContext() == context_.get();
    });
    observe(window_, vtkCommand::WindowFrameEvent, [this](vtkObject*, unsigned long, void*) {
        if (!inPaint_)
            update();
    });
    observe(window_, vtkCommand::WindowSupportsOpenGLEvent,
            [](vtkObject*, unsigned long, void* data) { *static_cast<int*>(data) = 1; });
    observe(window_, vtkCommand::WindowIsDirectEvent,
            [](vtkObject*, unsigned long, void* data) { *static_cast<int*>(data) = 1; });
    observe(interactor_, vtkCommand::RenderEvent,
            [this](vtkObject*, unsigned long, void*) { requestRender(); });
    auto countIssue = [this](vtkObject*, unsigned long, void*) { ++vtkIssues_; };
    observe(window_, vtkCommand::ErrorEvent, countIssue);
    observe(window_, vtkCommand::WarningEvent, countIssue);
    observe(renderer_, vtkCommand::ErrorEvent, countIssue);
    observe(renderer_, vtkCommand::WarningEvent, countIssue);
}

vtkGenericOpenGLRenderWindow* VtkWidget::renderWindow() const {
    return window_;
}
vtkGenericRenderWindowInteractor* VtkWidget::interactor() const {
    return interactor_;
}
vtkRenderer* VtkWidget::renderer() const {
    return renderer_;
}

void VtkWidget::requestRender() {
    dirty_ = true;
    if (!inPaint_)
        update();
}

bool VtkWidget::makeContextCurrent() {
    if (contextFailed_)
        return false;
    if (!context_) {
        surface_ = std::make_unique<QOffscreenSurface>();
        surface_->setFormat(defaultFormat());
        surface_->create();
        context_ = std::make_unique<QOpenGLContext>();
        context_->setFormat(defaultFormat());
        if (!surface_->isValid() || !context_->create() || !context_->makeCurrent(surface_.get())) {
            contextFailed_ = true;
            ++vtkIssues_;
            return false;
        }
        window_->SetOwnContext(false);
        window_->SetReadyForRendering(true);
        window_->OpenGLInitContext();
        const qreal dpr = devicePixelRatioF();
        window_->SetSize(std::max(1, int(width() * dpr)), std::max(1, int(height() * dpr)));
        interactor_->SetSize(std::max(1, int(width() * dpr)), std::max(1, int(height() * dpr)));
        dirty_ = true;
        return true;
    }
    return context_->makeCurrent(surface_.get());
}

void VtkWidget::finalizeContext() {
    if (!window_ || !window_->GetReadyForRendering())
        return;
    window_->Finalize();
    window_->SetReadyForRendering(false);
}

void VtkWidget::resizeGL(int w, int h) {
    const qreal dpr = devicePixelRatioF();
    const int pw = std::max(1, int(w * dpr)), ph = std::max(1, int(h * dpr));
    window_->SetSize(pw, ph);
    interactor_->SetSize(pw, ph);
    interactor_->InvokeEvent(vtkCommand::ConfigureEvent, nullptr);
    dirty_ = true;
}

void VtkWidget::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    resizeGL(width(), height());
    update();
}

void VtkWidget::renderFrame() {
    if (!makeContextCurrent())
        return;
    inPaint_ = true;
    const int* sz = window_->GetSize();
    const QSize px(sz[0], sz[1]);
    if (!target_ || target_->size() != px)
        target_ = std::make_unique<QOpenGLFramebufferObject>(px, QOpenGLFramebufferObject::NoAttachment);
    vtkOpenGLState* state = window_->GetState();
    // Qt's framebuffer object calls change GL state behind VTK's back: re-read it, render, restore.
    state->Reset();
    state->Push();
    window_->Render();
    if (frameRendered()) // the subclass placed something after this frame's layout: draw it so
        window_->Render();
    state->Pop();
    ++renders_;
    // Copy VTK's display framebuffer into ours.
    state->Reset();
    state->PushFramebufferBindings();
    state->vtkglBindFramebuffer(GL_DRAW_FRAMEBUFFER, target_->handle());
    window_->BlitDisplayFramebuffer(0, 0, 0, sz[0], sz[1], 0, 0, sz[0], sz[1], GL_COLOR_BUFFER_BIT,
                                    GL_NEAREST);
    state->PopFramebufferBindings();
    // VTK may leave alpha < 1; the frame is opaque.
    QOpenGLFunctions* f = context_->functions();
    f->glBindFramebuffer(GL_FRAMEBUFFER, target_->handle());
    f->glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_TRUE);
    f->glClearColor(0, 0, 0, 1);
    f->glClear(GL_COLOR_BUFFER_BIT);
    f->glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    frame_ = target_->toImage().convertToFormat(QImage::Format_RGB32);
    f->glBindFramebuffer(GL_FRAMEBUFFER, 0);
    state->Reset();
    frame_.setDevicePixelRatio(devicePixelRatioF());
    dirty_ = false;
    inPaint_ = false;
}

QImage VtkWidget::grabFramebuffer() {
    const qreal dpr = devicePixelRatioF();
    if (dirty_ || frame_.size() != QSize(int(width() * dpr), int(height() * dpr)))
        renderFrame();
    QImage img = frame_;
    img.setDevicePixelRatio(1.0);
    return img;
}

void VtkWidget::paintEvent(QPaintEvent*) {
    const qreal dpr = devicePixelRatioF();
    if (dirty_ || frame_.size() != QSize(int(width() * dpr), int(height() * dpr)))
        renderFrame();
    QPainter p(this);
    if (frame_.isNull()) {
        p.fillRect(rect(), palette().window());
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                   tr("No OpenGL context: the view cannot be drawn."));
        return;
    }
    p.drawImage(QPoint(0, 0), frame_);
}

QPoint VtkWidget::toVtkDisplay(const QPointF& p) const {
    const qreal dpr = devicePixelRatioF();
    return {int(p.x() * dpr), int((height() - p.y()) * dpr) - 1};
}

void VtkWidget::setModifiers(Qt::KeyboardModifiers m, const QPoint& p) {
    interactor_->SetEventInformation(p.x(), p.y(), (m & Qt::ControlModifier) ? 1 : 0,
                                     (m & Qt::ShiftModifier) ? 1 : 0);
    interactor_->SetAltKey((m & Qt::AltModifier) ? 1 : 0);
}

void VtkWidget::forwardMouse(QMouseEvent* e, unsigned long vtkEvent) {
    setModifiers(e->modifiers(), toVtkDisplay(e->position()));
    interactor_->InvokeEvent(vtkEvent, e);
}

void VtkWidget::mousePressEvent(QMouseEvent* e) {
    setFocus(Qt::MouseFocusReason);
    switch (e->button()) {
    case Qt::LeftButton:
        forwardMouse(e, vtkCommand::LeftButtonPressEvent);
        break;
    case Qt::MiddleButton:
        forwardMouse(e, vtkCommand::MiddleButtonPressEvent);
        break;
    case Qt::RightButton:
        forwardMouse(e, vtkCommand::RightButtonPressEvent);
        break;
    default:
        break;
    }
}

void VtkWidget::mouseMoveEvent(QMouseEvent* e) {
    forwardMouse(e, vtkCommand::MouseMoveEvent);
}

void VtkWidget::mouseReleaseEvent(QMouseEvent* e) {
    switch (e->button()) {
    case Qt::LeftButton:
        forwardMouse(e, vtkCommand::LeftButtonReleaseEvent);
        break;
    case Qt::MiddleButton:
        forwardMouse(e, vtkCommand::MiddleButtonReleaseEvent);
        break;
    case Qt::RightButton:
        forwardMouse(e, vtkCommand::RightButtonReleaseEvent);
        break;
    default:
        break;
    }
}

void VtkWidget::mouseDoubleClickEvent(QMouseEvent* e) {
    interactor_->SetRepeatCount(1);
    mousePressEvent(e);
    interactor_->SetRepeatCount(0);
}

void VtkWidget::wheelEvent(QWheelEvent* e) {
    setModifiers(e->modifiers(), toVtkDisplay(e->position()));
    const int dy = e->angleDelta().y();
    if (dy > 0)
        interactor_->InvokeEvent(vtkCommand::MouseWheelForwardEvent, e);
    else if (dy < 0)
        interactor_->InvokeEvent(vtkCommand::MouseWheelBackwardEvent, e);
    e->accept();
}

void VtkWidget::keyPressEvent(QKeyEvent* e) {
    const QPoint p = toVtkDisplay(mapFromGlobal(QCursor::pos()));
    setModifiers(e->modifiers(), p);
    const QByteArray text = e->text().toLatin1();
    interactor_->SetKeyCode(text.isEmpty() ? 0 : text[0]);
    interactor_->SetRepeatCount(e->isAutoRepeat() ? 1 : 0);
    interactor_->InvokeEvent(vtkCommand::KeyPressEvent, e);
    // Only the harmless single-key commands of VTK's styles (reset camera, wireframe, surface); others
    // (stereo, exit, joystick) make no sense inside the studio.
    if (text == "r" || text == "w" || text == "s")
        interactor_->InvokeEvent(vtkCommand::CharEvent, e);
    QWidget::keyPressEvent(e);
}

void VtkWidget::keyReleaseEvent(QKeyEvent* e) {
    const QByteArray text = e->text().toLatin1();
    interactor_->SetKeyCode(text.isEmpty() ? 0 : text[0]);
    interactor_->InvokeEvent(vtkCommand::KeyReleaseEvent, e);
}

void VtkWidget::enterEvent(QEnterEvent* e) {
    interactor_->InvokeEvent(vtkCommand::EnterEvent, e);
    QWidget::enterEvent(e);
}

void VtkWidget::leaveEvent(QEvent* e) {
    interactor_->InvokeEvent(vtkCommand::LeaveEvent, e);
    QWidget::leaveEvent(e);
}

} // namespace yee::ui
