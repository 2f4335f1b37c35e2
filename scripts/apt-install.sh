# Sourced by the test scripts: `apt_install PACKAGE...` installs Debian packages with apt-get when
# running as root on a Debian-like machine, and otherwise fails with the command to run.
apt_install() {
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "installing $* with apt-get"
        apt-get update -qq && apt-get install -y -qq "$@"
    else
        echo "error: $* missing; on Debian/Ubuntu: apt-get install $*" >&2
        exit 1
    fi
}
