/// Our VTKHDF snapshot files open in VTK's own reader (the one ParaView uses) with the same geometry
/// and values. Built only when VTK's IOHDF module is found.
#include <QTemporaryDir>
#include <QtTest>

#include <vtkDataArray.h>
#include <vtkHDFReader.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkPointData.h>

#include "yee/io/VtkHdfWriter.hpp"

using namespace yee;

class tst_VtkHdfReader : public QObject {
    Q_OBJECT

private slots:
    void vtkReadsOurImage() {
        QTemporaryDir dir;
        const std::string file = dir.filePath("field_000007.vtkhdf").toStdString();
        solver::Snapshot ex, ez;
        for (auto* s : {&ex, &ez}) {
            s->detector = "vol";
            s->step = 7;
            s->dims = {4, 3, 2};
            s->originUm = {-0.5, 1.0, 2.0};
            s->spacingUm = {0.1, 0.2, 0.3};
            for (int i = 0; i < 24; ++i)
                s->data.push_back(float(i) * (s == &ex ? 1.f : -2.f));
        }
        ex.component = "Ex";
        ez.component = "Ez";
        io::writeVtkHdf(file, std::vector<const solver::Snapshot*>{&ex, &ez});

        vtkNew<vtkHDFReader> reader;
        QVERIFY(reader->CanReadFile(file.c_str()));
        reader->SetFileName(file.c_str());
        reader->Update();
        auto* image = vtkImageData::SafeDownCast(reader->GetOutputAsDataSet());
        QVERIFY(image);
        int dims[3];
        image->GetDimensions(dims);
        QCOMPARE(dims[0], 4);
        QCOMPARE(dims[1], 3);
        QCOMPARE(dims[2], 2);
        double origin[3], spacing[3];
        image->GetOrigin(origin);
        image->GetSpacing(spacing);
        for (int a = 0; a < 3; ++a) {
            QCOMPARE(origin[a], ex.originUm[std::size_t(a)]);
            QCOMPARE(spacing[a], ex.spacingUm[std::size_t(a)]);
        }
        for (auto* s : {&ex, &ez}) {
            vtkDataArray* a = image->GetPointData()->GetArray(s->component.c_str());
            QVERIFY2(a, s->component.c_str());
            QCOMPARE(a->GetNumberOfTuples(), vtkIdType(24));
            // x fastest: point (i, j, k) is tuple i + 4 (j + 3 k).
            for (int k = 0; k < 2; ++k)
                for (int j = 0; j < 3; ++j)
                    for (int i = 0; i < 4; ++i) {
                        const int ijk[3] = {i, j, k};
                        const vtkIdType id = image->ComputePointId(const_cast<int*>(ijk));
                        QCOMPARE(a->GetTuple1(id), double(s->data[std::size_t(i + 4 * (j + 3 * k))]));
                    }
        }
    }
};

QTEST_APPLESS_MAIN(tst_VtkHdfReader)
#include "tst_VtkHdfReader.moc"
