//go:build integration

package enginetest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/threadbench/threadbench/internal/targets"
)

// certLife is how long the test's certificates are valid: the test's
// length, with room for clocks.
const certLife = 24 * time.Hour

// serverTLS are the engine's side of TLS: dockerd's --tlscacert, --tlscert
// and --tlskey.
type serverTLS struct{ CA, Cert, Key string }

// writeCerts makes what `dockerd --tlsverify` and its clients need, as the
// Docker documentation's openssl steps do for a real host: a CA, a server
// certificate for the engine's IP address, and a client certificate, all
// signed by the CA, as PEM files in dir.
func writeCerts(dir, engineIP string) (targets.TLSFiles, serverTLS, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return targets.TLSFiles{}, serverTLS{}, err
	}
	caTemplate := certTemplate("threadbench test CA")
	caTemplate.IsCA, caTemplate.BasicConstraintsValid = true, true
	caTemplate.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		return targets.TLSFiles{}, serverTLS{}, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return targets.TLSFiles{}, serverTLS{}, err
	}
	caFile := filepath.Join(dir, "ca.pem")
	if err := writePEM(caFile, "CERTIFICATE", caDER); err != nil {
		return targets.TLSFiles{}, serverTLS{}, err
	}
	server := certTemplate("engine")
	server.IPAddresses = []net.IP{net.ParseIP(engineIP)}
	server.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	serverCert, serverKey, err := signed(dir, "server", server, ca, caKey)
	if err != nil {
		return targets.TLSFiles{}, serverTLS{}, err
	}
	client := certTemplate("client")
	client.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	clientCert, clientKey, err := signed(dir, "client", client, ca, caKey)
	if err != nil {
		return targets.TLSFiles{}, serverTLS{}, err
	}
	return targets.TLSFiles{CA: caFile, Cert: clientCert, Key: clientKey}, serverTLS{CA: caFile, Cert: serverCert, Key: serverKey}, nil
}

// certTemplate is a certificate valid from a minute ago for certLife.
func certTemplate(name string) *x509.Certificate {
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	return &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Minute),
		NotAfter:     time.Now().Add(certLife),
		KeyUsage:     x509.KeyUsageDigitalSignature,
	}
}

// signed makes a key and a certificate from template signed by the CA,
// written to dir as NAME-cert.pem and NAME-key.pem.
func signed(dir, name string, template, ca *x509.Certificate, caKey *ecdsa.PrivateKey) (certFile, keyFile string, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", err
	}
	der, err := x509.CreateCertificate(rand.Reader, template, ca, &key.PublicKey, caKey)
	if err != nil {
		return "", "", err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return "", "", err
	}
	certFile, keyFile = filepath.Join(dir, name+"-cert.pem"), filepath.Join(dir, name+"-key.pem")
	if err := writePEM(certFile, "CERTIFICATE", der); err != nil {
		return "", "", err
	}
	return certFile, keyFile, writePEM(keyFile, "EC PRIVATE KEY", keyDER)
}

func writePEM(path, kind string, der []byte) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600)
}
