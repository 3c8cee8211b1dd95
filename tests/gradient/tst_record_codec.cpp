/// The reversible recorder's device encoder and decoder (kernels/RecordCodec.hpp, the path GPUs take)
/// against the host path CPU devices take (gradient::encode() / decode()), bit for bit, on CPU devices with
/// one and three threads (the scale's maximum found by atomics from several threads), for every storage
/// format, both precisions and values chosen to reach every branch: wide exponents, int8 rounding ties,
/// all-zero records, Inf and NaN. tst_gpu runs the same check on a GPU.
#include <QtTest>

#include "gradient/RecordCodecCheck.hpp"

using namespace yee;
using namespace yee::testing;

class tst_RecordCodec : public QObject {
    Q_OBJECT
private slots:
    void deviceCodecMatchesHost_data();
    void deviceCodecMatchesHost();
    void int8RoundingMatchesLround();
};

void tst_RecordCodec::deviceCodecMatchesHost_data() {
    QTest::addColumn<int>("dtype");
    QTest::addColumn<int>("values");
    QTest::addColumn<int>("threads");
    const char* kinds[] = {"wide", "ties", "zeros", "nonfinite"};
    for (gradient::Dtype d : {gradient::Dtype::Float64, gradient::Dtype::Float32, gradient::Dtype::BFloat16,
                              gradient::Dtype::Float16, gradient::Dtype::Int8})
        for (int v = 0; v < 4; ++v)
            for (int t : {1, 3})
                QTest::newRow(
                    qPrintable(QString("%1 %2 %3 threads").arg(gradient::dtypeName(d)).arg(kinds[v]).arg(t)))
                    << int(d) << v << t;
}

void tst_RecordCodec::deviceCodecMatchesHost() {
    QFETCH(int, dtype);
    QFETCH(int, values);
    QFETCH(int, threads);
    device::Device dev(device::DeviceKind::Cpu, 0, threads, std::int64_t(1) << 28);
    for (bool f64 : {false, true}) {
        const auto d = gradient::Dtype(dtype);
        const auto v = CodecValues(values);
        const std::string diff = f64 ? recordCodecDiff<double>(dev, d, v) : recordCodecDiff<float>(dev, d, v);
        QVERIFY2(diff.empty(), ((f64 ? "float64:" : "float32:") + diff).c_str());
    }
}

/// The device's int8 rounding (kernels::roundToInt8) is std::lround's, converted to int8, everywhere it is
/// used and beyond: every half-integer in [-200, 200], their neighbours, and out-of-range values.
void tst_RecordCodec::int8RoundingMatchesLround() {
    std::vector<double> ys = {
        0.0,    -0.0,    0.49999999999999994,   -0.49999999999999994,   1e18,     -1e18,
        9.3e18, -9.3e18, 9223372036854775808.0, -9223372036854775808.0, INFINITY, -INFINITY,
        NAN};
    for (int k = -400; k <= 400; ++k) {
        const double y = k * 0.5;
        ys.push_back(y);
        ys.push_back(std::nextafter(y, INFINITY));
        ys.push_back(std::nextafter(y, -INFINITY));
    }
    int checked = 0;
    for (double y : ys) {
        const auto want = static_cast<std::int8_t>(std::lround(y));
        const std::int8_t got = kernels::roundToInt8(y);
        QVERIFY2(got == want, qPrintable(QString("roundToInt8(%1) = %2, lround gives %3")
                                             .arg(y, 0, 'g', 17)
                                             .arg(int(got))
                                             .arg(int(want))));
        ++checked;
    }
    QVERIFY(checked > 2400);
}

QTEST_GUILESS_MAIN(tst_RecordCodec)
#include "tst_record_codec.moc"
