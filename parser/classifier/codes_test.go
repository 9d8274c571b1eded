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
		{name: "mount failure is Internal only via code", err: "rpc error: code = Internal desc = mount failed: exit status 32", want: CodeInternal},
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
