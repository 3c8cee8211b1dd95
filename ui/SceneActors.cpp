#include "ui/SceneActors.hpp"

#include <QColor>
#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <set>

#include <vtkActor.h>
#include <vtkArrowSource.h>
#include <vtkCellArray.h>
#include <vtkCubeSource.h>
#include <vtkCylinderSource.h>
#include <vtkOutlineSource.h>
#include <vtkPlane.h>
#include <vtkPlaneCollection.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkSphereSource.h>
#include <vtkTransform.h>
#include <vtkTriangleFilter.h>

#include "ui/Palette.hpp"
#include "ui/SceneCommands.hpp"
#include "yee/tiling/TileGrid.hpp"

namespace yee::ui {

namespace {

using scene::Vec3;

vtkSmartPointer<vtkActor> actorFor(vtkAlgorithm* source, const QColor& c, double opacity) {
    auto mapper = vtkSmartPointer<vtkPolyDataMapper>::New();
    mapper->SetInputConnection(source->GetOutputPort());
    auto actor = vtkSmartPointer<vtkActor>::New();
    actor->SetMapper(mapper);
    actor->GetProperty()->SetColor(c.redF(), c.greenF(), c.blueF());
    actor->GetProperty()->SetOpacity(opacity);
    actor->GetProperty()->SetEdgeColor(c.darker(160).redF(), c.darker(160).greenF(), c.darker(160).blueF());
    return actor;
}

vtkSmartPointer<vtkActor> boxActor(const Vec3& lo, const Vec3& hi, const QColor& c, double opacity) {
    vtkNew<vtkCubeSource> cube;
    cube->SetBounds(lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]);
    return actorFor(cube, c, opacity);
}

vtkSmartPointer<vtkActor> centeredBox(const Vec3& center, const Vec3& size, const QColor& c, double opacity) {
    Vec3 lo, hi;
    for (int a = 0; a < 3; ++a) {
        lo[a] = center[a] - 0.5 * size[a];
        hi[a] = center[a] + 0.5 * size[a];
    }
    return boxActor(lo, hi, c, opacity);
}

/// An arrow from `start` along `dir` (any length) with total length `length`.
vtkSmartPointer<vtkActor> arrowActor(const Vec3& start, Vec3 dir, double length, const QColor& c) {
    const double n = std::sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    if (n <= 0)
        dir = {1, 0, 0};
    else
        for (double& d : dir)
            d /= n;
    vtkNew<vtkArrowSource> arrow;
    arrow->SetTipResolution(24);
    arrow->SetShaftResolution(24);
    arrow->SetShaftRadius(0.05);
    arrow->SetTipRadius(0.13);
    auto actor = actorFor(arrow, c, 1.0);
    // vtkArrowSource points along +x: rotate +x onto dir.
    vtkNew<vtkTransform> t;
    t->Translate(start.data());
    const Vec3 x{1, 0, 0};
    const Vec3 axis{x[1] * dir[2] - x[2] * dir[1], x[2] * dir[0] - x[0] * dir[2],
                    x[0] * dir[1] - x[1] * dir[0]};
    const double angle = std::acos(std::clamp(dir[0], -1.0, 1.0)) * 180.0 / M_PI;
    if (std::hypot(axis[0], axis[1], axis[2]) > 1e-12)
        t->RotateWXYZ(angle, axis.data());
    else if (dir[0] < 0)
        t->RotateWXYZ(180, 0, 0, 1);
    t->Scale(length, length, length);
    actor->SetUserTransform(t);
    return actor;
}

vtkSmartPointer<vtkActor> sphereActor(const Vec3& center, double radius, const QColor& c, double opacity) {
    vtkNew<vtkSphereSource> sphere;
    sphere->SetCenter(center.data());
    sphere->SetRadius(radius);
    sphere->SetThetaResolution(40);
    sphere->SetPhiResolution(24);
    return actorFor(sphere, c, opacity);
}

vtkSmartPointer<vtkActor> objectActor(const scene::Object& o, const QColor& c, double opacity) {
    switch (o.shape) {
    case scene::Shape::Box:
        return centeredBox(o.center, o.size, c, opacity);
    case scene::Shape::Sphere:
        return sphereActor(o.center, o.radius, c, opacity);
    case scene::Shape::Cylinder: {
        vtkNew<vtkCylinderSource> cyl; // along y, centred at the origin
        cyl->SetRadius(o.radius);
        cyl->SetHeight(o.height);
        cyl->SetResolution(48);
        auto actor = actorFor(cyl, c, opacity);
        vtkNew<vtkTransform> t;
        t->Translate(o.center.data());
        if (o.axis == 0)
            t->RotateZ(-90);
        else if (o.axis == 2)
            t->RotateX(90);
        actor->SetUserTransform(t);
        return actor;
    }
    case scene::Shape::Polygon: {
        // Prism: bottom and top caps plus side quads, triangulated (caps may be concave).
        const auto [u, v] = MoveResizeObjectCommand::planeAxes(o.axis);
        const int w = o.axis;
        const int n = int(o.vertices.size());
        vtkNew<vtkPoints> pts;
        for (int cap = 0; cap < 2; ++cap)
            for (const auto& p : o.vertices) {
                Vec3 q{};
                q[u] = p[0];
                q[v] = p[1];
                q[w] = o.center[w] + (cap ? 0.5 : -0.5) * o.height;
                pts->InsertNextPoint(q.data());
            }
        vtkNew<vtkCellArray> polys;
        if (n >= 3) {
            for (int cap = 0; cap < 2; ++cap) {
                polys->InsertNextCell(n);
                for (int i = 0; i < n; ++i)
                    polys->InsertCellPoint(cap * n + i);
            }
            for (int i = 0; i < n; ++i) {
                const vtkIdType quad[4] = {i, (i + 1) % n, n + (i + 1) % n, n + i};
                polys->InsertNextCell(4, quad);
            }
        }
        vtkNew<vtkPolyData> pd;
        pd->SetPoints(pts);
        pd->SetPolys(polys);
        vtkNew<vtkTriangleFilter> tri;
        tri->SetInputData(pd);
        return actorFor(tri, c, opacity);
    }
    }
    return nullptr;
}

Vec3 axisVector(int axis, double sign) {
    Vec3 d{0, 0, 0};
    d[std::clamp(axis, 0, 2)] = sign < 0 ? -1.0 : 1.0;
    return d;
}

void noPick(SceneActors& out, vtkSmartPointer<vtkProp> p, double opacity, SceneLayer layer) {
    p->PickableOff();
    out.props.push_back({p, {}, opacity, layer});
}

/// Clip an actor's geometry to the domain box (objects running through the boundary stop at it).
void clipToDomain(vtkActor* a, const std::array<double, 6>& b) {
    vtkNew<vtkPlaneCollection> planes;
    const double eps = 1e-9;
    for (int axis = 0; axis < 3; ++axis)
        for (int side = 0; side < 2; ++side) {
            vtkNew<vtkPlane> p;
            double o[3] = {0, 0, 0}, n[3] = {0, 0, 0};
            o[axis] = side == 0 ? b[std::size_t(2 * axis)] - eps : b[std::size_t(2 * axis + 1)] + eps;
            n[axis] = side == 0 ? 1 : -1; // keep the inside
            p->SetOrigin(o);
            p->SetNormal(n);
            planes->AddItem(p);
        }
    a->GetMapper()->SetClippingPlanes(planes);
}

} // namespace

QString layerName(SceneLayer l) {
    auto tr = [](const char* t) { return QCoreApplication::translate("yee::ui::SceneActors", t); };
    switch (l) {
    case SceneLayer::Domain:
        return tr("Domain outline");
    case SceneLayer::Pml:
        return tr("PML");
    case SceneLayer::TileCuts:
        return tr("Tile cuts");
    case SceneLayer::Objects:
        return tr("Objects");
    case SceneLayer::Designs:
        return tr("Design regions");
    case SceneLayer::Sources:
        return tr("Sources");
    case SceneLayer::Detectors:
        return tr("Detectors");
    case SceneLayer::Count:
        break;
    }
    return {};
}

SceneActors buildSceneActors(const scene::Scene& s) {
    SceneActors out;
    const Vec3 lo = s.domainLo();
    Vec3 hi;
    for (int a = 0; a < 3; ++a)
        hi[a] = lo[a] + s.domainSize[a];
    out.bounds = {lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]};
    // Glyph size: a fifth of the thinnest side, at least a tenth of the longest (a thin slab's arrows
    // must stay visible next to its long sides).
    const double glyph = std::max(0.2 * std::min({s.domainSize[0], s.domainSize[1], s.domainSize[2]}),
                                  0.1 * std::max({s.domainSize[0], s.domainSize[1], s.domainSize[2]}));
    // A plane's arrows grow with the plane, up to a third of the domain's longest side.
    auto planeArrow = [&](const Vec3& size) {
        const double longest = std::max({size[0], size[1], size[2]});
        return std::clamp(0.6 * longest, glyph,
                          std::max(glyph, std::max({s.domainSize[0], s.domainSize[1], s.domainSize[2]}) / 3));
    };

    // Domain outline.
    {
        vtkNew<vtkOutlineSource> outline;
        outline->SetBounds(out.bounds.data());
        auto a = actorFor(outline, QColor(40, 40, 40), 1.0);
        a->GetProperty()->SetLineWidth(1.5);
        noPick(out, a, 1.0, SceneLayer::Domain);
    }
    bool havePml = false, haveCuts = false;
    // PML shells: slabs inside the domain on every face of a PML axis.
    for (int a = 0; a < 3; ++a) {
        const int cells = s.pmlCells(a);
        if (cells <= 0)
            continue;
        const double t = cells * s.cellUm;
        for (int side = 0; side < 2; ++side) {
            Vec3 slo = lo, shi = hi;
            if (side == 0)
                shi[a] = lo[a] + t;
            else
                slo[a] = hi[a] - t;
            noPick(out, boxActor(slo, shi, colors::pml(), 0.10), 0.10, SceneLayer::Pml);
            havePml = true;
        }
    }
    // Tile cuts of the chosen tile grid, as the solver will split it.
    try {
        std::array<tiling::AxisBoundary, 3> bc;
        std::array<int, 3> pml;
        for (int a = 0; a < 3; ++a) {
            const auto t = s.boundaries[a].type;
            bc[a] = t == scene::BoundaryType::Pml        ? tiling::AxisBoundary::Pml
                    : t == scene::BoundaryType::Periodic ? tiling::AxisBoundary::Periodic
                                                         : tiling::AxisBoundary::Pec;
            pml[a] = s.pmlCells(a);
        }
        const tiling::TileGrid grid(s.gridCells(), s.run.tiles, bc, pml);
        for (int a = 0; a < 3; ++a) {
            std::set<int> cuts;
            for (int t = 0; t < grid.count(); ++t)
                if (grid.tile(t).box.lo[a] > 0)
                    cuts.insert(grid.tile(t).box.lo[a]);
            for (int c : cuts) {
                Vec3 clo = lo, chi = hi;
                clo[a] = chi[a] = lo[a] + c * s.cellUm;
                auto cut = boxActor(clo, chi, colors::tileCut(), 0.28);
                cut->GetProperty()->EdgeVisibilityOn();
                cut->GetProperty()->SetLineWidth(2.0);
                noPick(out, cut, 0.28, SceneLayer::TileCuts);
                haveCuts = true;
            }
        }
    } catch (const std::exception& e) {
        out.tileProblem = QString::fromStdString(e.what());
    }
    std::set<std::string> used;
    // Objects, coloured by material; objects of the background material are faint.
    for (int i = 0; i < int(s.objects.size()); ++i) {
        const auto& o = s.objects[i];
        const double opacity = o.material == s.background ? 0.35 : 1.0;
        scene::Object shown = o;
        if (o.shape == scene::Shape::Box) {
            // Waveguides usually run through the PML and out of the domain: draw the part inside.
            for (int a = 0; a < 3; ++a) {
                const double l = std::max(lo[a], o.center[a] - 0.5 * o.size[a]);
                const double h = std::min(hi[a], o.center[a] + 0.5 * o.size[a]);
                shown.center[a] = 0.5 * (l + h);
                shown.size[a] = std::max(0.0, h - l);
            }
        }
        if (auto a = objectActor(shown, materialColor(s, o.material), opacity)) {
            clipToDomain(a, out.bounds);
            // Where faces of two objects coincide (a ring's core and its hole), the later object wins, as
            // in the rasteriser: each later object is pulled a step nearer in depth, so nothing flickers.
            auto* m = a->GetMapper();
            m->SetResolveCoincidentTopologyToPolygonOffset();
            m->SetRelativeCoincidentTopologyPolygonOffsetParameters(-0.5 * (i + 1), -4.0 * (i + 1));
            m->SetRelativeCoincidentTopologyLineOffsetParameters(-0.5 * (i + 1), -4.0 * (i + 1));
            out.props.push_back({a, {ItemKind::Object, i}, opacity, SceneLayer::Objects});
            used.insert(o.material);
        }
    }
    // Design regions: translucent boxes.
    for (int i = 0; i < int(s.designs.size()); ++i) {
        const auto& d = s.designs[i];
        auto a = centeredBox(d.center, d.size, colors::design(), 0.45);
        a->GetProperty()->EdgeVisibilityOn();
        out.props.push_back({a, {ItemKind::Design, i}, 0.45, SceneLayer::Designs});
    }
    // Sources: a sheet with an arrow along the propagation direction, or a dipole arrow.
    for (int i = 0; i < int(s.sources.size()); ++i) {
        const auto& src = s.sources[i];
        const ItemRef ref{ItemKind::Source, i};
        if (src.type == scene::SourceType::PointDipole) {
            Vec3 start = src.center;
            const double n = std::hypot(src.polarization[0], src.polarization[1], src.polarization[2]);
            for (int a = 0; a < 3; ++a)
                start[a] -= 0.5 * glyph * (n > 0 ? src.polarization[a] / n : 0);
            out.props.push_back({arrowActor(start, src.polarization, glyph, colors::source()), ref, 1.0,
                                 SceneLayer::Sources});
            out.props.push_back({sphereActor(src.center, 0.08 * glyph, colors::source(), 1.0), ref, 1.0,
                                 SceneLayer::Sources});
        } else {
            out.props.push_back(
                {centeredBox(src.center, src.size, colors::source(), 0.45), ref, 0.45, SceneLayer::Sources});
            const double length = planeArrow(src.size);
            out.props.push_back(
                {arrowActor(src.center, axisVector(src.normal, src.direction), length, colors::source()), ref,
                 1.0, SceneLayer::Sources});
            // Polarisation: a shorter, lighter arrow in the sheet.
            auto pol = arrowActor(src.center, src.polarization, 0.7 * length, colors::source().lighter(125));
            out.props.push_back({pol, ref, 1.0, SceneLayer::Sources});
        }
    }
    // Detectors: planes, boxes or points.
    for (int i = 0; i < int(s.detectors.size()); ++i) {
        const auto& d = s.detectors[i];
        const ItemRef ref{ItemKind::Detector, i};
        const bool point =
            d.type == scene::DetectorType::Probe || (d.size[0] == 0 && d.size[1] == 0 && d.size[2] == 0);
        if (point) {
            out.props.push_back({sphereActor(d.center, 0.1 * glyph, colors::detector(), 1.0), ref, 1.0,
                                 SceneLayer::Detectors});
            continue;
        }
        auto a = centeredBox(d.center, d.size, colors::detector(), 0.35);
        a->GetProperty()->EdgeVisibilityOn();
        out.props.push_back({a, ref, 0.35, SceneLayer::Detectors});
        if (d.type == scene::DetectorType::Flux)
            out.props.push_back({arrowActor(d.center, axisVector(d.normal, d.direction),
                                            0.7 * planeArrow(d.size), colors::detector()),
                                 ref, 1.0, SceneLayer::Detectors});
    }
    // ---- legend: every colour on screen and what it means ----
    for (const auto& m : s.materials)
        if (used.count(m.name))
            out.legend.push_back({QCoreApplication::translate("yee::ui::SceneActors", "%1 (material)")
                                      .arg(QString::fromStdString(m.name)),
                                  materialColor(s, m.name), SceneLayer::Objects});
    if (havePml)
        out.legend.push_back({layerName(SceneLayer::Pml), colors::pml(), SceneLayer::Pml});
    if (haveCuts)
        out.legend.push_back({layerName(SceneLayer::TileCuts), colors::tileCut(), SceneLayer::TileCuts});
    if (!s.designs.empty())
        out.legend.push_back({layerName(SceneLayer::Designs), colors::design(), SceneLayer::Designs});
    if (!s.sources.empty())
        out.legend.push_back({layerName(SceneLayer::Sources), colors::source(), SceneLayer::Sources});
    if (!s.detectors.empty())
        out.legend.push_back({layerName(SceneLayer::Detectors), colors::detector(), SceneLayer::Detectors});
    return out;
}

void setPropSelected(const SceneProp& p, bool selected) {
    auto* actor = vtkActor::SafeDownCast(p.prop);
    if (!actor)
        return;
    vtkProperty* prop = actor->GetProperty();
    if (selected) {
        const QColor c = colors::selection();
        prop->EdgeVisibilityOn();
        prop->SetEdgeColor(c.redF(), c.greenF(), c.blueF());
        prop->SetLineWidth(3.0);
        prop->SetOpacity(std::max(p.opacity, 0.6));
    } else {
        const double* col = prop->GetColor();
        prop->SetEdgeColor(col[0] * 0.6, col[1] * 0.6, col[2] * 0.6);
        prop->SetLineWidth(1.0);
        prop->SetOpacity(p.opacity);
        // Boxes of sheets keep their edges; solid objects do not.
        if (p.ref.kind == ItemKind::Object)
            prop->EdgeVisibilityOff();
    }
}

} // namespace yee::ui
