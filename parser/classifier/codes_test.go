package classifier

import "testing"

// TestClassifyCode covers every real error string of the catalog, the
// examples and the real logs, plus the boundaries between classes.
func TestClassifyCode(t *testing.T) {
	cases := []struct {
		name string
		err  string
		want string
	}{
		{name: "CBS ZoneNotMatch ≤2022-10", err: "rpc error: code = Internal desc = [TencentCloudSDKError] Code=ResourceUnavailable.ZoneNotMatch, Message=DiskId: disk-7x9qk2mz, 可用区不匹配 (5e2b9c0d7a41), RequestId=0b7c3a52-6f1e-4d8a-9c2b-5e2b9c0d7a41", want: CodeZoneNotMatch},
		{name: "CBS ZoneNotMatch ≥2022-10 Aborted wrapper", err: "rpc error: code = Aborted desc = attachVolume disk-7x9qk2mz failed, err: [rpc error: code = Internal desc = [TencentCloudSDKError] Code=ResourceUnavailable.ZoneNotMatch, Message=DiskId: disk-7x9qk2mz, 可用区不匹配 (5e2b9c0d7a41), RequestId=0b7c3a52-6f1e-4d8a-9c2b-5e2b9c0d7a41]", want: CodeZoneNotMatch},
		{name: "CBS 2018 ZoneNotMatch, no blanks", err: "rpc error: code = Internal desc =[TencentCloudSDKError]Code=ZoneNotMatch, Message=DiskId: disk-7velaoxs, 可用区不匹配 (4903727fccda), RequestId=c7932c18-f712-4bc1-9b47-4903727fccda", want: CodeZoneNotMatch},
		{name: "SDK message text is ignored", err: "[TencentCloudSDKError] Code=InternalError, Message=disk not found in the same zone, RequestId=x", want: ""},
		{name: "ZoneMismatch", err: "ZoneMismatch: volume is in zone a, instance in zone b", want: CodeZoneNotMatch},
		{name: "not in the same zone", err: "the disk and the instance are not in the same zone", want: CodeZoneNotMatch},
		{name: "node affinity conflict", err: "0/3 nodes are available: 3 node(s) had volume node affinity conflict.", want: CodeZoneNotMatch},
		{name: "CBS serial 2020-08..2022-10", err: "rpc error: code = Internal desc = can not find diskId disk-7x9qk2mz by serial", want: CodeSerialNotFound},
		{name: "CBS serial ≥2022-10", err: "rpc error: code = Internal desc = findCBSVolume error cbs disk=/dev/disk/by-id/virtio-disk-7x9qk2mz, error can not find diskId disk-7x9qk2mz by serial", want: CodeSerialNotFound},
		{name: "CBS 2018 block path", err: `cbs block path "/dev/disk/by-id/virtio-disk-7x9qk2mz" not found`, want: CodeSerialNotFound},
		{name: "Huawei VolumeDeviceNotFound", err: "rpc error: code = Internal desc = VolumeDeviceNotFound", want: CodeSerialNotFound},
		{name: "could not find device path", err: "could not find device path for volume vol-1", want: CodeSerialNotFound},
		{name: "not attached to node (device kin)", err: "volume vol-1 is not attached to node ip-1", want: CodeSerialNotFound},
		{name: "AWS VolumeInUse", err: `error attaching EBS volume "vol-0a1b2c3d4e5f60718" to instance "i-0c6ae60ad1f13fa3d": VolumeInUse: vol-0a1b2c3d4e5f60718 is already attached to an instance`, want: CodeVolumeInUse},
		{name: "AWS 1.4 VolumeInUse with status", err: "Error attaching EBS volume: VolumeInUse: vol-0dacaeb7988eaecb8 is already attached to an instance\n\t\tstatus code: 400, request id: ", want: CodeVolumeInUse},
		{name: "CBS attach to another instance", err: "rpc error: code = FailedPrecondition desc = disk disk-7x9qk2mz is attach to another instance(ins-e5f6g7h8) already", want: CodeVolumeInUse},
		{name: "still in use by node", err: `DetachVolume failed for volume "p" (UniqueName: "v") on node "n" : volume is still in use by node, according to Node status`, want: CodeStillMounted},
		{name: "device still mounted by other references", err: `the device mount path "/var/lib/kubelet/plugins/x/globalmount" is still mounted by other references [/a]`, want: CodeStillMounted},
		{name: "Multi-Attach", err: `Multi-Attach error for volume "p" Volume is already exclusively attached to one node and can't be attached to another`, want: CodeMultiAttach},
		{name: "AWS NotFound", err: "InvalidVolume.NotFound: The volume 'vol-1' does not exist.", want: CodeNotFound},
		{name: "grpc NotFound", err: "rpc error: code = NotFound desc = disk disk-7x9qk2mz not found", want: CodeNotFound},
		{name: "grpc DeadlineExceeded", err: "rpc error: code = DeadlineExceeded desc = context deadline exceeded", want: CodeDeadlineExceeded},
		{name: "CBS not attached before deadline", err: "rpc error: code = DeadlineExceeded desc = cbs disk disk-7x9qk2mz is not attached before deadline exceeded", want: CodeDeadlineExceeded},
		{name: "old CSI attachment timeout", err: "attachment timeout for volume vol-0ddf92e13636fa667", want: CodeDeadlineExceeded},
		{name: "external-attacher timeout", err: "timed out waiting for external-attacher of ebs.csi.aws.com CSI driver to attach volume vol-1", want: CodeDeadlineExceeded},
		{name: "kubelet wait", err: "timed out waiting for the condition", want: CodeDeadlineExceeded},
		{name: "not attached according to node status", err: `Volume not attached according to node status for volume "p" (UniqueName: "v") pod "x" (UID: "u") `, want: CodeNotAttached},
		{name: "not in VolumesInUse", err: `Volume has not been added to the list of VolumesInUse in the node's volume status for volume "p"`, want: CodeNotInUse},
		{name: "1.3 not yet in VolumesInUse", err: `Volume "v" (spec.Name: "s") pod "u" (UID: "u") has not yet been added to the list of VolumesInUse in the node's volume status.`, want: CodeNotInUse},
		{name: "already executing", err: "Failed to create operation with name {volumeName:v podName: nodeName:}. An operation with that name is already executing.", want: CodeAlreadyExecuting},
		{name: "permission", err: "rpc error: code = PermissionDenied desc = forbidden", want: CodePermission},
		{name: "Internal fallback", err: "rpc error: code = Internal desc = Bad response statusCode [500]", want: CodeInternal},
		{name: "mount failure without a reason", err: "rpc error: code = Internal desc = mount failed: exit status 32", want: CodeMountFailed},
		{name: "driver not registered (kubelet)", err: "driver name rbd.csi.ceph.com not found in the list of registered CSI drivers", want: CodeDriverNotRegistered},
		{name: "driver not registered is not NotFound", err: "rpc error: code = NotFound desc = driver name hostpath.csi.k8s.io not found in the list of registered CSI drivers", want: CodeDriverNotRegistered},
		{name: "CSINode lacks the driver", err: `CSINode node-1 does not contain driver ebs.csi.aws.com`, want: CodeDriverNotRegistered},
		{name: "wrong fs type", err: "mount failed: exit status 32\nMounting command: systemd-run\nOutput: mount: /var/lib/kubelet/plugins/kubernetes.io/aws-ebs/mounts/aws/us-east-2a/vol-1: wrong fs type, bad option, bad superblock on /dev/nvme1n1, missing codepage or helper program, or other error.", want: CodeWrongFSType},
		{name: "can't read superblock", err: "rpc error: code = Internal desc = error in formatting and mounting volume. err: mount failed: exit status 32 output: mount: /var/lib/kubelet/plugins/kubernetes.io/csi/pv/pvc-1/globalmount: can't read superblock on /dev/sdi", want: CodeWrongFSType},
		{name: "unknown filesystem type", err: "mount failed: exit status 32\nOutput: mount: unknown filesystem type 'LVM2_member'", want: CodeWrongFSType},
		{name: "fsck could not correct", err: "'fsck' found errors on device /dev/xvdf but could not correct them: fsck from util-linux 2.31.1", want: CodeFsckFailed},
		{name: "mount option rejected", err: "mount failed: exit status 32\nOutput: mount: unrecognized mount option \"nobarrier\" or missing value", want: CodeMountOptionRejected},
		{name: "already mounted or mount point busy", err: "rpc error: code = Internal desc = mount failed: exit status 32\nOutput: mount: /var/lib/kubelet/x/globalmount: /dev/longhorn/pvc-1 already mounted or mount point busy.", want: CodeDeviceBusy},
		{name: "device or resource busy", err: "mount failed: exit status 32\nOutput: mount: /dev/sdb: Device or resource busy", want: CodeDeviceBusy},
		{name: "mount permission denied (SELinux)", err: "mount failed: exit status 32\nOutput: mount: /var/lib/kubelet/pods/u/volumes/kubernetes.io~nfs/data: permission denied", want: CodePermission},
		{name: "format failed", err: `format of disk "/dev/longhorn/pvc-1" failed: type:("ext4") target:("/mnt") options:(["defaults"])error:(exit status 1)`, want: CodeFormatFailed},
		{name: "device not found with serial", err: "rpc error: code = Internal desc = Error creating device for volume 0656, err: device not found with serial 6c83 or target", want: CodeSerialNotFound},
		{name: "by-id path does not exist", err: "rpc error: code = Internal desc = The file /dev/disk/by-id/scsi-0HC_Volume_1 does not exist", want: CodeSerialNotFound},
		{name: "a missing file elsewhere is NotFound", err: "rpc error: code = NotFound desc = the path /var/lib/x does not exist", want: CodeNotFound},
		{name: "unclassified", err: "rpc error: code = Unknown desc = boom", want: ""},
		{name: "empty", err: "", want: ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := classifyCode(tc.err); got != tc.want {
				t.Errorf("classifyCode(%q) = %q, want %q", tc.err, got, tc.want)
			}
		})
	}
}
