/// \file YeeModule.cpp
/// The extension module yee._yee: exceptions, the run pump and the registration of every binding.
#include <chrono>
#include <exception>
#include <thread>

#include "Bindings.hpp"
#include "yee/core/Error.hpp"

namespace yee::python {

py::array readOnlyView(const std::vector<double>& data, const std::vector<std::int64_t>& shape,
                       py::handle base) {
    std::vector<py::ssize_t> dims(shape.begin(), shape.end());
    std::vector<py::ssize_t> strides(dims.size());
    py::ssize_t stride = sizeof(double);
    for (std::size_t i = dims.size(); i-- > 0;) {
        strides[i] = stride;
        stride *= dims[i];
    }
    py::array a(py::dtype::of<double>(), dims, strides, data.data(), base);
    a.attr("setflags")(py::arg("write") = false);
    return a;
}

std::size_t designIndex(const scene::Scene& s, const std::string& name) {
    for (std::size_t d = 0; d < s.designs.size(); ++d)
        if (s.designs[d].name == name)
            return d;
    throw InputError("designs: no design region '" + name + "'");
}

Pump::Pump(py::object progress) : progress_(std::move(progress)) {}

void Pump::attach(run::RunOptions& o) {
    o.cancel = &cancel_;
    o.onTelemetry = [this](const telemetry::Report& r) {
        if (inlineMode_) {
            py::gil_scoped_acquire gil;
            deliver(r);
            checkSignals();
            return;
        }
        {
            std::lock_guard lk(m_);
            queue_.push_back(r);
        }
        cv_.notify_one();
    };
}

void Pump::reset() {
    cancel_.store(false);
    interrupted_ = false;
    done_ = false;
    queue_.clear();
    timeline_.clear();
}

std::vector<telemetry::Report> Pump::takeTimeline() {
    return std::move(timeline_);
}

void Pump::deliver(const telemetry::Report& r) {
    timeline_.push_back(r);
    if (progress_.is_none() || pythonError_ || cancel_.load())
        return;
    try {
        py::object ret = progress_(r);
        if (py::isinstance<py::bool_>(ret) && !ret.cast<bool>())
            cancel_.store(true);
    } catch (py::error_already_set& e) {
        if (e.matches(PyExc_KeyboardInterrupt))
            interrupted_ = true;
        else
            pythonError_.emplace(std::move(e));
        cancel_.store(true);
    }
}

void Pump::checkSignals() {
    if (PyErr_CheckSignals() == 0)
        return;
    py::error_already_set e;
    if (e.matches(PyExc_KeyboardInterrupt))
        interrupted_ = true;
    else if (!pythonError_)
        pythonError_.emplace(std::move(e));
    cancel_.store(true);
}

void Pump::runOnWorker(const std::function<void()>& body) {
    std::exception_ptr failure;
    done_ = false;
    std::thread worker([&] {
        try {
            body();
        } catch (...) {
            failure = std::current_exception();
        }
        {
            std::lock_guard lk(m_);
            done_ = true;
        }
        cv_.notify_one();
    });
    for (;;) {
        std::deque<telemetry::Report> batch;
        bool finished = false;
        {
            py::gil_scoped_release release;
            std::unique_lock lk(m_);
            cv_.wait_for(lk, std::chrono::milliseconds(20), [&] { return done_ || !queue_.empty(); });
            batch.swap(queue_);
            finished = done_;
        }
        for (const auto& r : batch)
            deliver(r);
        checkSignals();
        if (finished)
            break;
    }
    {
        py::gil_scoped_release release;
        worker.join();
    }
    if (cancel_.load() && !interrupted_ && !pythonError_)
        interrupted_ = true; // the callback returned False
    if (failure)
        std::rethrow_exception(failure);
}

namespace {

/// The field a one-line message names: the text before the first ": " (empty when there is none).
std::string fieldOf(const std::string& message) {
    const auto colon = message.find(": ");
    return colon == std::string::npos ? std::string() : message.substr(0, colon);
}

/// Raises `type(message)` with attribute `field` set.
void raiseWithField(py::handle type, const char* message) {
    py::object e = type(message);
    e.attr("field") = fieldOf(message);
    PyErr_SetObject(type.ptr(), e.ptr());
}

} // namespace

} // namespace yee::python

PYBIND11_MODULE(_yee, m) {
    using namespace yee::python;
    m.doc() = "Yee Studio's libyee: scenes, runs, value-and-grad, optimisation (see the yee package)";
    m.attr("__version__") = YEE_VERSION;

    // Bad input (scene, options): ValueError; not enough device memory: a SceneError subclass;
    // failures while running: RuntimeError. Each carries the one-line message and the field it names.
    static py::exception<yee::InputError> sceneError(m, "SceneError", PyExc_ValueError);
    static py::exception<yee::MemoryError> memoryError(m, "DeviceMemoryError", sceneError.ptr());
    static py::exception<yee::RunError> runError(m, "RunError", PyExc_RuntimeError);
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p)
                std::rethrow_exception(p);
        } catch (const yee::MemoryError& e) {
            raiseWithField(memoryError, e.what());
        } catch (const yee::InputError& e) {
            raiseWithField(sceneError, e.what());
        } catch (const yee::RunError& e) {
            raiseWithField(runError, e.what());
        } catch (const yee::Cancelled& e) {
            PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
        }
    });

    bindScene(m);
    bindResults(m);
    bindRun(m);
    bindOpt(m);
    bindMpi(m);
}
